import {
  PaymentCreate,
  PaymentRecord,
  PaymentRequestCreate,
  PaymentRequestRecord,
  PaymentUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { releasePayment } from '../billing/invoices.js';
import { filterPayments, paymentFilterParams } from '../billing/list-filters.js';
import {
  createPayment,
  ManualTransferProvider,
  type PaymentProvider,
  paymentChanged,
  paymentChanges,
  paymentRecords,
  paymentRequestRecord,
  requestPayment,
  visiblePayments,
} from '../billing/payments.js';
import { requireAdmin } from '../http/auth.js';
import { collection, collectionRoutes, findIn } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { billingList } from './billing-lists.js';
import { pathId } from '../http/params.js';

/** spec: payments (money received from members). */
export const payments = collection({
  table: 'payments',
  record: PaymentRecord,
  visible: visiblePayments,
  records: (ctx, rows) => paymentRecords(ctx.db, rows),
  list: billingList(paymentFilterParams, filterPayments),
  create: {
    body: PaymentCreate,
    insert: (trx, { ctx, caller, body }) => createPayment(trx, caller, body, ctx.clock.now()),
  },
  update: {
    body: PaymentUpdate,
    columns: (body, row, { trx }) => paymentChanges(trx, row, body),
    written: (trx, before, after, ctx, _caller, body) =>
      paymentChanged(trx, before, after, body, ctx.clock.now().toISOString()),
  },
  // The invoices it settled are open again.
  remove: { before: (trx, row, ctx) => releasePayment(trx, row.id, ctx.clock.now().toISOString()) },
});

const IdParams = z.object({ paymentId: pathId });

/** spec: payments and payment requests. */
export function paymentsRoutes(
  ctx: HubServices,
  provider: PaymentProvider = new ManualTransferProvider(),
): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, payments, async (app) => {
    app.post(
      '/payments/:paymentId/request-payment',
      {
        schema: {
          tags: ['payments'],
          params: IdParams,
          body: PaymentRequestCreate,
          response: { 200: PaymentRequestRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findIn(payments, ctx, caller, {}, request.params.paymentId);
        const created = await requestPayment(
          ctx.db,
          provider,
          row,
          request.body?.notes,
          caller.memberId,
          ctx.clock.now().toISOString(),
        );
        return paymentRequestRecord(created);
      },
    );
  });
}
