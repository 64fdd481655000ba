import { ChargeCreate, ChargeRecord, ChargeUpdate } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  chargeChanges,
  chargeRecord,
  createCharge,
  emitCharge,
  refuseChargeDelete,
  refuseInvoiced,
  visibleCharges,
} from '../billing/charges.js';
import {
  type ChargeFilters,
  chargeFilterParams,
  checkRange,
  filterCharges,
} from '../billing/list-filters.js';
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
    // The same filters as GET /charges/totals (billing/list-filters.ts), so totals match the list.
    query: { ...chargeFilterParams, order: orderParam },
    where: (base, query) => filterCharges(base, checkRange(query as ChargeFilters)),
    order: (query) => [
      ['dateTime', query.order as 'asc' | 'desc'],
      ['id', query.order as 'asc' | 'desc'],
    ],
  },
  create: {
    body: ChargeCreate,
    insert: (trx, { ctx, caller, body }) => createCharge(trx, caller, body, ctx.clock.now()),
  },
  // While the charge is on no invoice (409 once it is).
  update: {
    body: ChargeUpdate,
    columns: (body, row) => chargeChanges(row, body),
    written: async (trx, _before, after) => {
      refuseInvoiced(after); // an invoice run took it meanwhile: roll back
      await emitCharge(trx, 'charge_updated', after);
    },
  },
  remove: {
    before: (trx, row) => refuseChargeDelete(trx, row),
    after: (trx, row) => emitCharge(trx, 'charge_deleted', row),
  },
});

export function chargesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => registerCollection(app, ctx, charges);
}
