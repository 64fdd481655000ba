import { ChargeCreate, ChargeRecord, Id } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { chargeRecord, createCharge, visibleCharges } from '../billing/charges.js';
import { collection, registerCollection } from '../http/collection.js';
import { orderParam } from '../http/list.js';
import type { HubServices } from '../http/services.js';

/** spec: charges (usage, bookings, package fees and manual charges). */
export const charges = collection({
  table: 'charges',
  path: '/charges',
  id: 'chargeId',
  noun: 'Charge',
  nouns: 'charges',
  tag: 'charges',
  record: ChargeRecord,
  scope: (_ctx, caller, _params, db) => visibleCharges(db, caller),
  records: (_ctx, rows) => rows.map(chargeRecord),
  list: {
    search: 'description',
    equals: {
      member: Id.optional(),
      invoice: Id.optional(),
      resourceLog: Id.optional(),
      booking: Id.optional(),
    },
    query: {
      uninvoiced: z.boolean().optional().describe('true: only charges on no invoice yet'),
      order: orderParam,
    },
    where: (base, query) =>
      query.uninvoiced === undefined ? base : base.where('invoice', query.uninvoiced ? 'is' : 'is not', null),
    order: (query) => [
      ['dateTime', query.order as 'asc' | 'desc'],
      ['id', query.order as 'asc' | 'desc'],
    ],
  },
  create: {
    body: ChargeCreate,
    insert: (trx, { ctx, caller, body }) => createCharge(trx, caller, body, ctx.clock.now()),
  },
});

export function chargesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => registerCollection(app, ctx, charges);
}
