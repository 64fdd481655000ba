import { ChargeCreate, ChargeRecord, Id } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { chargeRecord, createCharge, findCharge, visibleCharges } from '../billing/charges.js';
import type { HubContext } from '../context.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { likePattern, orderParam, pageParams, queryPage, sendPage } from '../http/list.js';

const IdParams = z.object({ chargeId: z.coerce.number().int().positive() });
const ListQuery = z.object({
  ...pageParams,
  member: Id.optional(),
  invoice: Id.optional(),
  uninvoiced: z.boolean().optional().describe('true: only charges on no invoice yet'),
  resourceLog: Id.optional(),
  booking: Id.optional(),
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
        const { limit, offset, q, member, invoice, uninvoiced, resourceLog, booking, order } = request.query;
        let base = visibleCharges(ctx.db, callerOf(request));
        if (member) base = base.where('member', '=', member);
        if (invoice) base = base.where('invoice', '=', invoice);
        if (uninvoiced === true) base = base.where('invoice', 'is', null);
        if (uninvoiced === false) base = base.where('invoice', 'is not', null);
        if (resourceLog) base = base.where('resourceLog', '=', resourceLog);
        if (booking) base = base.where('booking', '=', booking);
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('description')]), 'like', likePattern(q)));
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
