import {
  PaymentCreate,
  PaymentRecord,
  PaymentRequestCreate,
  PaymentRequestRecord,
  PaymentUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { localTime } from '../billing/local-time.js';
import { formatMoney, parseMoney } from '../billing/money.js';
import {
  checkInvoicesOf,
  findPayment,
  ManualTransferProvider,
  markRequestsPaid,
  type PaymentProvider,
  paymentRecord,
  paymentRequestRecord,
  requestPayment,
  visiblePayments,
} from '../billing/payments.js';
import { allocatePayment, releasePayment } from '../billing/invoices.js';
import { billingSettingsFor, spaceTimezone } from '../billing/settings.js';
import type { HubServices } from '../http/services.js';
import { now, updateLocked } from '../db/crud.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { unprocessable } from '../errors.js';
import { checkRange, filterPayments, paymentFilterParams } from '../billing/list-filters.js';
import { orderParam, pageParams, queryPage, sendPage } from '../http/list.js';

const IdParams = z.object({ paymentId: z.coerce.number().int().positive() });
const ListQuery = z.object({
  limit: pageParams.limit,
  offset: pageParams.offset,
  ...paymentFilterParams,
  order: orderParam,
});

/** spec: payments (money received from members) and payment requests. */
export function paymentsRoutes(
  ctx: HubServices,
  provider: PaymentProvider = new ManualTransferProvider(),
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['payments'];
    app.post(
      '/payments',
      { schema: { tags, body: PaymentCreate, response: { 201: PaymentRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const body = request.body;
        const member = await ctx.db
          .selectFrom('members')
          .select(['id', 'account', 'space'])
          .where('id', '=', body.member)
          .where('account', '=', caller.accountId)
          .executeTakeFirst();
        if (!member) throw unprocessable(`Member ${body.member} does not exist`, { member: 'unknown' });
        if (body.invoices && body.state === 'pending') {
          throw unprocessable('A pending payment settles invoices when it is completed; send invoices then', {
            invoices: 'pending',
          });
        }
        await checkInvoicesOf(ctx.db, member.id, body.invoices);
        const date = body.date ?? localTime(ctx.clock.now(), await spaceTimezone(ctx.db, member.space)).date;
        const row = await ctx.events.transaction(async (trx) => {
          const stamp = now();
          const payment = await trx
            .insertInto('payments')
            .values({
              account: member.account,
              member: member.id,
              date,
              total: formatMoney(parseMoney(body.total)),
              state: body.state ?? 'completed',
              notes: body.notes ?? null,
              createdAt: stamp,
              updatedAt: stamp,
              updatedBy: caller.memberId,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          await allocatePayment(trx, payment, body.invoices ?? null);
          return payment;
        });
        return reply.code(201).send(await paymentRecord(ctx.db, row));
      },
    );

    app.get(
      '/payments',
      { schema: { tags, querystring: ListQuery, response: { 200: z.array(PaymentRecord) } } },
      async (request, reply) => {
        const { limit, offset, order } = request.query;
        const base = filterPayments(visiblePayments(ctx.db, callerOf(request)), checkRange(request.query));
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id', order));
        const records = [];
        for (const row of page.rows) records.push(await paymentRecord(ctx.db, row));
        return sendPage(request, reply, page, records, ctx.publicUrl);
      },
    );

    app.get(
      '/payments/:paymentId',
      { schema: { tags, params: IdParams, response: { 200: PaymentRecord } } },
      async (request) =>
        paymentRecord(ctx.db, await findPayment(ctx.db, callerOf(request), request.params.paymentId)),
    );

    app.put(
      '/payments/:paymentId',
      { schema: { tags, params: IdParams, body: PaymentUpdate, response: { 200: PaymentRecord } } },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findPayment(ctx.db, caller, request.params.paymentId);
        const { lockVersion, invoices, total, ...rest } = request.body;
        const state = rest.state ?? row.state;
        if (invoices && state === 'pending') {
          throw unprocessable('A pending payment settles invoices when it is completed', {
            invoices: 'pending',
          });
        }
        await checkInvoicesOf(ctx.db, row.member, invoices);
        const values = Object.fromEntries(
          Object.entries({
            ...rest,
            total: total === undefined ? undefined : formatMoney(parseMoney(total)),
          }).filter(([, v]) => v !== undefined),
        );
        await ctx.events.transaction(async (trx) => {
          await updateLocked(trx, 'payments', row.id, lockVersion, values, caller.memberId);
          const reallocate = invoices !== undefined || total !== undefined || state !== row.state;
          if (!reallocate) return;
          await releasePayment(trx, row.id);
          const fresh = await findPayment(trx, caller, row.id);
          if (fresh.state === 'completed' && row.state !== 'completed') await markRequestsPaid(trx, row.id);
          await allocatePayment(trx, fresh, invoices ?? null);
        });
        return paymentRecord(ctx.db, await findPayment(ctx.db, caller, row.id));
      },
    );

    app.delete('/payments/:paymentId', { schema: { tags, params: IdParams } }, async (request, reply) => {
      const caller = requireAdmin(request);
      const row = await findPayment(ctx.db, caller, request.params.paymentId);
      await ctx.events.transaction(async (trx) => {
        await releasePayment(trx, row.id);
        await trx.deleteFrom('payments').where('id', '=', row.id).execute();
      });
      return reply.code(204).send();
    });

    app.post(
      '/payments/:paymentId/request-payment',
      {
        schema: {
          tags,
          params: IdParams,
          body: PaymentRequestCreate,
          response: { 200: PaymentRequestRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findPayment(ctx.db, caller, request.params.paymentId);
        const member = await ctx.db
          .selectFrom('members')
          .select('space')
          .where('id', '=', row.member)
          .executeTakeFirstOrThrow();
        const { currency } = await billingSettingsFor(ctx.db, member.space);
        const created = await requestPayment(
          ctx.db,
          provider,
          row,
          request.body?.notes,
          currency,
          caller.memberId,
        );
        return paymentRequestRecord(created);
      },
    );
  };
}
