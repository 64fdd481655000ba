import { ChargeTotals, InvoiceTotals, PaymentTotals } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { visibleCharges } from '../billing/charges.js';
import { visibleInvoices } from '../billing/invoices.js';
import {
  ChargeFilters,
  checkRange,
  filterCharges,
  filterInvoices,
  filterPayments,
  InvoiceFilters,
  PaymentFilters,
} from '../billing/list-filters.js';
import { type Amount, formatMoney, parseMoney, ZERO } from '../billing/money.js';
import { visiblePayments } from '../billing/payments.js';
import type { HubServices } from '../http/services.js';
import { callerOf } from '../http/auth.js';

const sum = (values: Amount[]) => values.reduce((a, b) => a + b, ZERO);

/**
 * Totals of the filtered billing lists, for the admin console's sums and for any client that
 * wants them without paging through every record. Each takes the list's own filters and sees
 * what the list sees (members: their own records). Amounts are summed exactly (bigint), never
 * as floating point in SQL.
 */
export function billingTotalsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/charges/totals',
      {
        schema: {
          tags: ['charges'],
          summary: 'Count and sums of the charges that match the list filters',
          description:
            'Takes the filters of `GET /charges` and adds up every charge they select (not only one page): the count, the total, and what is invoiced and not yet invoiced.',
          querystring: ChargeFilters,
          response: { 200: ChargeTotals },
        },
      },
      async (request) => {
        const rows = await filterCharges(visibleCharges(ctx.db, callerOf(request)), checkRange(request.query))
          .select(['price', 'invoice'])
          .execute();
        const invoiced = sum(rows.filter((r) => r.invoice !== null).map((r) => parseMoney(r.price)));
        const uninvoiced = sum(rows.filter((r) => r.invoice === null).map((r) => parseMoney(r.price)));
        return {
          count: rows.length,
          total: formatMoney(invoiced + uninvoiced),
          invoiced: formatMoney(invoiced),
          uninvoiced: formatMoney(uninvoiced),
        };
      },
    );

    app.get(
      '/invoices/totals',
      {
        schema: {
          tags: ['invoices'],
          summary: 'Count and sums of the invoices that match the list filters',
          description:
            'Takes the filters of `GET /invoices` and adds up every invoice they select (not only one page): the count, the total, and what is paid and still open.',
          querystring: InvoiceFilters,
          response: { 200: InvoiceTotals },
        },
      },
      async (request) => {
        const rows = await filterInvoices(
          visibleInvoices(ctx.db, callerOf(request)),
          checkRange(request.query),
        )
          .select(['total', 'paid', 'state'])
          .execute();
        const open = rows
          .filter((r) => r.state === 'unpaid')
          .map((r) => parseMoney(r.total) - parseMoney(r.paid));
        return {
          count: rows.length,
          total: formatMoney(sum(rows.map((r) => parseMoney(r.total)))),
          paid: formatMoney(sum(rows.map((r) => parseMoney(r.paid)))),
          open: formatMoney(sum(open)),
        };
      },
    );

    app.get(
      '/payments/totals',
      {
        schema: {
          tags: ['payments'],
          summary: 'Count and sums of the payments that match the list filters',
          description:
            'Takes the filters of `GET /payments` and adds up every payment they select (not only one page): the count, the total, and what is completed and pending.',
          querystring: PaymentFilters,
          response: { 200: PaymentTotals },
        },
      },
      async (request) => {
        const rows = await filterPayments(
          visiblePayments(ctx.db, callerOf(request)),
          checkRange(request.query),
        )
          .select(['total', 'state'])
          .execute();
        const of = (state: string) =>
          sum(rows.filter((r) => r.state === state).map((r) => parseMoney(r.total)));
        return {
          count: rows.length,
          total: formatMoney(sum(rows.map((r) => parseMoney(r.total)))),
          completed: formatMoney(of('completed')),
          pending: formatMoney(of('pending')),
        };
      },
    );
  };
}
