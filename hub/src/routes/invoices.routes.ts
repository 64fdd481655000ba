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
import { invoicePdf, invoicePdfFileName, keepInvoiceContent } from '../billing/invoice-pdf.js';
import { filterInvoices, invoiceFilterParams } from '../billing/list-filters.js';
import { defined } from '../db/crud.js';
import { callerOf } from '../http/auth.js';
import { collection, collectionRoutes, findIn } from '../http/collection.js';
import { fileReply } from '../http/file-reply.js';
import type { HubServices } from '../http/services.js';
import { adminRoute } from '../http/route.js';
import { billingList } from './billing-lists.js';
import { pathId } from '../http/params.js';
import { pagedNote } from '../http/openapi-doc.js';

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
  docs: {
    list: {
      summary: 'List invoices',
      description: `Filters: \`member\`, \`space\`, \`state\`. Members see their own. ${pagedNote}`,
    },
    get: {
      summary: 'Get an invoice',
      description:
        'With its payments. Members read their own invoices. `embed=details` adds `_embedded.details`, the lines and tax totals as GET /invoices/{invoiceId}/details gives them.',
    },
    create: {
      summary: 'Invoice a member',
      description:
        'Puts all the member’s uninvoiced charges on a new invoice with the next number of the space.',
      errors: {
        409: 'Charges changed while the invoice was made; try again.',
        422: 'The member does not exist, or has no uninvoiced charges (`data.noCharges`).',
      },
      example: { member: 42, dueDate: '2026-12-15', text: 'Thank you for making things with us.' },
    },
    update: {
      summary: 'Change an invoice’s texts and due date',
      description: 'Amounts and charges cannot be changed: cancel the invoice instead.',
      example: { lockVersion: 1, dueDate: '2026-12-31', notes: 'Paying in two parts' },
    },
  },
});

const IdParams = z.object({ invoiceId: pathId });

/** spec: invoices, their cancellation and details. */
export function invoicesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, invoices, async (app) => {
    const tags = ['invoices'];

    adminRoute(
      app,
      'post',
      '/invoices/:invoiceId/cancel',
      {
        tags,
        summary: 'Cancel an invoice',
        description:
          'The invoice keeps its number and reads `cancelled`; its charges go on the next invoice and its payments are released to the member’s other invoices.',
        errors: { 409: 'The invoice is already cancelled (`data.alreadyCancelled`).' },
        example: { lockVersion: 2 },
        params: IdParams,
        body: InvoiceCancel,
        response: { 200: z.object({}) },
      },
      async (request, caller) => {
        const at = ctx.clock.now().toISOString();
        await ctx.events.transaction(async (trx) => {
          // What the invoice prints, kept before its charges leave it (its PDF, marked cancelled).
          await keepInvoiceContent(trx, caller, request.params.invoiceId, at);
          await cancelInvoice(trx, caller, request.params.invoiceId, request.body?.lockVersion, at);
        });
        return {};
      },
    );

    app.get(
      '/invoices/:invoiceId/details',
      {
        schema: {
          tags,
          summary: 'Get an invoice’s lines and tax totals',
          description: 'Each charge with its net price, and the totals by tax rate.',
          params: IdParams,
          response: { 200: InvoiceDetails },
        },
      },
      async (request) =>
        invoiceDetails(ctx.db, await findIn(invoices, ctx, callerOf(request), {}, request.params.invoiceId)),
    );

    app.get(
      '/invoices/:invoiceId/pdf',
      {
        schema: {
          tags,
          summary: 'Get an invoice as a PDF',
          description:
            'The invoice as a printable A4 PDF (`application/pdf`, file name `invoice-{number}.pdf`): the space’s logo, name, address and tax id (billing settings), the recipient, number and dates, the lines, the totals per tax rate and the total, the header, text and footer. Printed in the member’s language where invoices offer it (English, German), else the space’s. The PDF is stored the first time it is made, and every later request answers the same bytes; a cancelled invoice prints marked cancelled. Members read their own invoices.',
          params: IdParams,
          produces: ['application/pdf'],
          response: {
            200: {
              description: 'OK: the invoice’s PDF',
              content: { 'application/pdf': { schema: z.file().describe('The PDF') } },
            },
          },
        },
      },
      async (request, reply) => {
        const row = await findIn(invoices, ctx, callerOf(request), {}, request.params.invoiceId);
        const pdf = await invoicePdf(ctx.db, row.id, { clock: ctx.clock });
        // Personal data: no shared cache keeps it. The bytes as they are (the schema's File is what
        // the document calls binary).
        const name = invoicePdfFileName(row.number);
        return fileReply(reply, { type: 'application/pdf', name, cache: 'private, no-store' }).send(
          pdf as unknown as File,
        );
      },
    );
  });
}
