import { ChargeCreate, ChargeRecord } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { chargeRecord, createCharge, findCharge, visibleCharges } from '../billing/charges.js';
import type { HubContext } from '../context.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { chargeFilterParams, checkRange, filterCharges } from '../billing/list-filters.js';
import { orderParam, pageParams, queryPage, sendPage } from '../http/list.js';

const IdParams = z.object({ chargeId: z.coerce.number().int().positive() });
const ListQuery = z.object({
  ...pageParams,
  ...chargeFilterParams,
  order: orderParam,
});

/** spec: charges (usage, bookings, package fees and manual charges). */
export function chargesRoutes(ctx: HubContext): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['charges'];
    app.post(
      '/charges',
      { schema: { tags, body: ChargeCreate, response: { 201: ChargeRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await ctx.events.transaction((trx) =>
          createCharge(trx, caller, request.body, ctx.clock.now()),
        );
        return reply.code(201).send(chargeRecord(row));
      },
    );

    app.get(
      '/charges',
      { schema: { tags, querystring: ListQuery, response: { 200: z.array(ChargeRecord) } } },
      async (request, reply) => {
        const { limit, offset, order } = request.query;
        const base = filterCharges(visibleCharges(ctx.db, callerOf(request)), checkRange(request.query));
        const page = await queryPage(base, { limit, offset }, (b) =>
          b.selectAll().orderBy('dateTime', order).orderBy('id', order),
        );
        return sendPage(request, reply, page, page.rows.map(chargeRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/charges/:chargeId',
      { schema: { tags, params: IdParams, response: { 200: ChargeRecord } } },
      async (request) => chargeRecord(await findCharge(ctx.db, callerOf(request), request.params.chargeId)),
    );
  };
}
