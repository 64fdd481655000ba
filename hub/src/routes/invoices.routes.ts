import {
  InvoiceCancel,
  InvoiceCreate,
  InvoiceDetails,
  InvoiceRecord,
  InvoiceUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  cancelInvoice,
  createInvoice,
  emitInvoice,
  invoiceDetails,
  invoiceRecords,
  visibleInvoices,
} from '../billing/invoices.js';
import { filterInvoices, invoiceFilterParams } from '../billing/list-filters.js';
import { defined } from '../db/crud.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { collection, collectionRoutes, findIn } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { billingList } from './billing-lists.js';
import { pathId } from '../http/params.js';

/** spec: invoices; `embed=details` adds each invoice's lines and tax totals. */
export const invoices = collection({
  table: 'invoices',
  record: InvoiceRecord,
  embeds: ['details'],
  visible: visibleInvoices,
  records: (ctx, rows, _caller, embed) => invoiceRecords(ctx.db, rows, embed),
  list: billingList(invoiceFilterParams, filterInvoices),
  create: {
    body: InvoiceCreate,
    insert: (trx, { ctx, caller, body }) =>
      createInvoice(trx, caller.accountId, body, ctx.clock.now(), caller.memberId),
  },
  update: {
    body: InvoiceUpdate,
    // Texts and the due date only: amounts and charges change by cancelling.
    columns: ({ lockVersion: _, ...fields }) => defined(fields),
    written: (trx, _before, after) => emitInvoice(trx, 'invoice_updated', after),
  },
});

const IdParams = z.object({ invoiceId: pathId });

/** spec: invoices, their cancellation and details. */
export function invoicesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, invoices, async (app) => {
    const tags = ['invoices'];

    app.post(
      '/invoices/:invoiceId/cancel',
      { schema: { tags, params: IdParams, body: InvoiceCancel, response: { 200: z.object({}) } } },
      async (request) => {
        const caller = requireAdmin(request);
        const at = ctx.clock.now().toISOString();
        await ctx.events.transaction((trx) =>
          cancelInvoice(trx, caller, request.params.invoiceId, request.body?.lockVersion, at),
        );
        return {};
      },
    );

    app.get(
      '/invoices/:invoiceId/details',
      { schema: { tags, params: IdParams, response: { 200: InvoiceDetails } } },
      async (request) =>
        invoiceDetails(ctx.db, await findIn(invoices, ctx, callerOf(request), {}, request.params.invoiceId)),
    );
  });
}
