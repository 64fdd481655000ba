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
import { collection, collectionRoutes, onRecord } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { adminRoute } from '../http/route.js';
import { billingList } from './billing-lists.js';
import { pathId } from '../http/params.js';
import { pagedNote } from '../http/openapi-doc.js';

/** spec: payments (money received from members). */
export const payments = collection({
  table: 'payments',
  record: PaymentRecord,
  visible: visiblePayments,
  records: (ctx, rows) => paymentRecords(ctx.db, rows),
  list: billingList(paymentFilterParams, filterPayments),
  create: {
    body: PaymentCreate,
    insert: (trx, { ctx, caller, body }) =>
      createPayment(trx, caller, body, ctx.clock.now(), ctx.notifications),
  },
  update: {
    body: PaymentUpdate,
    columns: (body, row, { trx }) => paymentChanges(trx, row, body),
    written: (trx, before, after, ctx, _caller, body) =>
      paymentChanged(trx, before, after, body, ctx.clock.now().toISOString(), ctx.notifications),
  },
  // The invoices it settled are open again.
  remove: { before: (trx, row, ctx) => releasePayment(trx, row.id, ctx.clock.now().toISOString()) },
  docs: {
    list: {
      summary: 'List payments',
      description: `Filters: \`member\`, \`state\`. Members see their own. ${pagedNote}`,
    },
    get: {
      summary: 'Get a payment',
      description: 'With the invoices it settles.',
    },
    create: {
      summary: 'Record a payment',
      description:
        'Money received from a member (`method`: cash, transfer, card, other; default manual), settling the listed invoices, or else their oldest open ones. A pending payment settles invoices when it is completed.',
      errors: {
        422: 'The member does not exist, an invoice is not theirs or is cancelled, or a pending payment lists invoices.',
      },
      example: { member: 42, date: '2026-11-23', total: '45.00', method: 'cash', invoices: [118] },
    },
    update: {
      summary: 'Change a payment',
      description: 'Completing a pending payment settles its invoices.',
      errors: { 422: 'An invoice is not the member’s or is cancelled, or a pending payment lists invoices.' },
      example: { lockVersion: 1, state: 'completed', invoices: [118] },
    },
    remove: {
      summary: 'Delete a payment',
      description: 'The invoices it settled are open again.',
    },
  },
});

const IdParams = z.object({ paymentId: pathId });

/** spec: payments and payment requests. */
export function paymentsRoutes(
  ctx: HubServices,
  provider: PaymentProvider = new ManualTransferProvider(),
): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, payments, async (app) => {
    adminRoute(
      app,
      'post',
      '/payments/:paymentId/request-payment',
      {
        tags: ['payments'],
        summary: 'Ask a member to pay',
        description:
          'Creates a payment request for a pending payment with a reference and payment instructions.',
        errors: { 409: 'The payment is already completed (`data.alreadyPaid`).' },
        example: { notes: 'Please pay by the end of the month' },
        params: IdParams,
        body: PaymentRequestCreate,
        response: { 200: PaymentRequestRecord },
      },
      onRecord(payments, ctx, async (row, request, caller) => {
        const created = await requestPayment(
          ctx.db,
          provider,
          row,
          request.body?.notes,
          caller.memberId,
          ctx.clock.now().toISOString(),
        );
        return paymentRequestRecord(created);
      }),
    );
  });
}
