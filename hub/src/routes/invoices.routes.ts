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
  findInvoice,
  invoiceDetails,
  invoiceRecord,
  visibleInvoices,
} from '../billing/invoices.js';
import type { HubServices } from '../http/services.js';
import { emitInvoice } from '../billing/invoices.js';
import { updateLocked } from '../db/crud.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { checkRange, filterInvoices, invoiceFilterParams } from '../billing/list-filters.js';
import { orderParam, pageParams, queryPage, sendPage } from '../http/list.js';

const IdParams = z.object({ invoiceId: z.coerce.number().int().positive() });
const ListQuery = z.object({
  ...pageParams,
  ...invoiceFilterParams,
  order: orderParam,
});

/** spec: invoices, their cancellation and details. */
export function invoicesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['invoices'];
    app.post(
      '/invoices',
      { schema: { tags, body: InvoiceCreate, response: { 201: InvoiceRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await ctx.events.transaction((trx) =>
          createInvoice(trx, caller.accountId, request.body, ctx.clock.now(), caller.memberId),
        );
        return reply.code(201).send(await invoiceRecord(ctx.db, row));
      },
    );

    app.get(
      '/invoices',
      { schema: { tags, querystring: ListQuery, response: { 200: z.array(InvoiceRecord) } } },
      async (request, reply) => {
        const { limit, offset, order } = request.query;
        const base = filterInvoices(visibleInvoices(ctx.db, callerOf(request)), checkRange(request.query));
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id', order));
        const records = [];
        for (const row of page.rows) records.push(await invoiceRecord(ctx.db, row));
        return sendPage(request, reply, page, records, ctx.publicUrl);
      },
    );

    app.get(
      '/invoices/:invoiceId',
      { schema: { tags, params: IdParams, response: { 200: InvoiceRecord } } },
      async (request) =>
        invoiceRecord(ctx.db, await findInvoice(ctx.db, callerOf(request), request.params.invoiceId)),
    );

    app.put(
      '/invoices/:invoiceId',
      { schema: { tags, params: IdParams, body: InvoiceUpdate, response: { 200: InvoiceRecord } } },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findInvoice(ctx.db, caller, request.params.invoiceId);
        const { lockVersion, ...fields } = request.body;
        const values = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
        await ctx.events.transaction(async (trx) => {
          await updateLocked(trx, 'invoices', row.id, lockVersion, values, caller.memberId);
          await emitInvoice(trx, 'invoice_updated', row);
        });
        return invoiceRecord(ctx.db, await findInvoice(ctx.db, caller, row.id));
      },
    );

    app.post(
      '/invoices/:invoiceId/cancel',
      { schema: { tags, params: IdParams, body: InvoiceCancel, response: { 200: z.object({}) } } },
      async (request) => {
        const caller = requireAdmin(request);
        await ctx.events.transaction((trx) =>
          cancelInvoice(trx, caller, request.params.invoiceId, request.body?.lockVersion),
        );
        return {};
      },
    );

    app.get(
      '/invoices/:invoiceId/details',
      { schema: { tags, params: IdParams, response: { 200: InvoiceDetails } } },
      async (request) =>
        invoiceDetails(ctx.db, await findInvoice(ctx.db, callerOf(request), request.params.invoiceId)),
    );
  };
}
