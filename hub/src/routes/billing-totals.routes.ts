import {
  ChargeTotals,
  InvoiceTotals,
  OpenBalance,
  OpenBalancesQuery,
  PaymentTotals,
} from '@makerspace/shared';
import { z } from 'zod';
import { openBalances } from '../billing/balance.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ChargeFilters,
  chargeTotals,
  InvoiceFilters,
  invoiceTotals,
  PaymentFilters,
  paymentTotals,
} from '../billing/list-filters.js';
import type { Db } from '../db/crud.js';
import { requireAdmin } from '../http/auth.js';
import { sendPage } from '../http/list.js';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import type { Caller } from '../kernel/caller.js';

interface Totals {
  nouns: 'charges' | 'invoices' | 'payments';
  filters: z.ZodType;
  answer: z.ZodType;
  /** What the sums are beside the count and the total. */
  sums: string;
  totals(db: Db, caller: Caller, filters: any): Promise<unknown>;
}

/**
 * Totals of the filtered billing lists, for the admin console's sums and for any client that
 * wants them without paging through every record. Each takes the list's own filters and sees
 * what the list sees (members: their own records). Amounts are summed exactly (bigint), never
 * as floating point in SQL (billing/list-filters.ts).
 */
const totals: Totals[] = [
  {
    nouns: 'charges',
    filters: ChargeFilters,
    answer: ChargeTotals,
    sums: 'what is invoiced and not yet invoiced',
    totals: chargeTotals,
  },
  {
    nouns: 'invoices',
    filters: InvoiceFilters,
    answer: InvoiceTotals,
    sums: 'what is paid and still open',
    totals: invoiceTotals,
  },
  {
    nouns: 'payments',
    filters: PaymentFilters,
    answer: PaymentTotals,
    sums: 'what is completed and pending',
    totals: paymentTotals,
  },
];

export function billingTotalsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    for (const t of totals) {
      const one = t.nouns.slice(0, -1);
      memberRoute(
        app,
        'get',
        `/${t.nouns}/totals`,
        {
          tags: [t.nouns],
          summary: `Count and sums of the ${t.nouns} that match the list filters`,
          description: `Takes the filters of \`GET /${t.nouns}\` and adds up every ${one} they select (not only one page): the count, the total, and ${t.sums}.`,
          querystring: t.filters,
          response: { 200: t.answer },
        },
        (request, caller) => t.totals(ctx.db, caller, request.query),
      );
    }

    app.get(
      '/balances',
      {
        schema: {
          tags: ['members'],
          summary: 'Open balances: the members whose balance is not zero (admins)',
          description:
            'Each member of the caller’s account whose balance (completed payments minus every charge, as `GET /members/{memberId}/balance-items` gives it) is not zero, most owed first, with what is open on their unpaid invoices and their charges on no invoice yet. A page at a time (`limit`, `offset`; `X-Total-Count`). Admins and owners.',
          querystring: OpenBalancesQuery,
          response: { 200: z.array(OpenBalance) },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const { limit, offset } = request.query;
        const { total, balances } = await openBalances(ctx.db, caller.accountId, { limit, offset });
        return sendPage(request, reply, { limit, offset, total }, balances, ctx.publicUrl);
      },
    );
  };
}
