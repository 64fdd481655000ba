import { DateString, Id, InvoiceState, PaymentState } from '@makerspace/shared';
import type { SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import { type Db, likePattern } from '../db/crud.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { badRequest } from '../errors.js';
import { type BillingTable, billingRows } from './billing.repository.js';
import { formatMoney, parseMoney, sum } from '../kernel/money.js';

/**
 * The records of a billing table the caller sees: their account's (every account's for a
 * superuser); plain members only their own (`member` column), or none (`member: null`).
 */
export function visibleIn<T extends BillingTable>(
  db: Db,
  table: T,
  caller: Caller,
  member: 'member' | null = 'member',
): SelectQueryBuilder<Database, T, object> {
  const admin = isAdmin(caller);
  return billingRows(db, table, {
    account: caller.superuser ? undefined : caller.accountId,
    member: !admin && member ? { column: member, id: caller.memberId } : undefined,
    none: !admin && !member,
  });
}

/**
 * The filters of the charge, invoice and payment lists, shared by the lists and their totals
 * (`GET /charges/totals` ...), so a total always covers exactly the rows the list filters.
 */

const from = DateString.optional().describe('Only records on or after this day (YYYY-MM-DD)');
const until = DateString.optional().describe('Only records on or before this day (YYYY-MM-DD)');

/** The day after `day` (YYYY-MM-DD), for an inclusive end compared with timestamps. */
function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** `from` and `until`: the records on or after, on or before a day. */
const dayRange = (records: string, day: string) => ({
  from: from.describe(`Only ${records} on or after this day (${day})`),
  until: until.describe(`Only ${records} on or before this day (${day})`),
});

/** `from` and `until` (dayRange), and `q`: a search text in the records' `searched` text. */
const dayRangeAndSearch = (records: string, day: string, searched: string) => ({
  ...dayRange(records, day),
  q: z.string().max(200).optional().describe(`Search text (${searched})`),
});

export const chargeFilterParams = {
  member: Id.optional(),
  invoice: Id.optional(),
  uninvoiced: z
    .boolean()
    .optional()
    .describe('true: only charges on no invoice yet; false: only invoiced ones'),
  resourceLog: Id.optional(),
  booking: Id.optional(),
  ...dayRangeAndSearch('charges', 'UTC, YYYY-MM-DD', 'description'),
};
export const ChargeFilters = z.object(chargeFilterParams);
export type ChargeFilters = z.infer<typeof ChargeFilters>;

/** What a list's filters select on: columns compared for equality, the dated column, the searched one. */
interface FilterSpec {
  equals: readonly string[];
  /** The column `from` and `until` compare; a timestamp column takes `until` as the whole day. */
  date: string;
  timestamps?: boolean;
  search?: string;
}

function applyFilters<T extends BillingTable, O>(
  base: SelectQueryBuilder<Database, T, O>,
  f: Record<string, unknown> & { from?: string; until?: string; q?: string },
  spec: FilterSpec,
): SelectQueryBuilder<Database, T, O> {
  let q = base as unknown as SelectQueryBuilder<any, any, O>;
  for (const column of spec.equals) if (f[column]) q = q.where(column, '=', f[column]);
  // A timestamp in UTC: a day string sorts before every time of that day.
  if (f.from) q = q.where(spec.date, '>=', f.from);
  if (f.until)
    q = spec.timestamps ? q.where(spec.date, '<', nextDay(f.until)) : q.where(spec.date, '<=', f.until);
  const text = f.q;
  const column = spec.search;
  if (column && text) q = q.where((eb) => eb(eb.fn('lower', [eb.ref(column)]), 'like', likePattern(text)));
  return q as unknown as SelectQueryBuilder<Database, T, O>;
}

/** A list's filter function from its spec. */
function filterOn<T extends BillingTable, F extends { from?: string; until?: string; q?: string }>(
  spec: FilterSpec,
) {
  return <O>(base: SelectQueryBuilder<Database, T, O>, f: F): SelectQueryBuilder<Database, T, O> =>
    applyFilters(base, f as Record<string, unknown>, spec);
}

export function filterCharges<O>(
  base: SelectQueryBuilder<Database, 'charges', O>,
  f: ChargeFilters,
): SelectQueryBuilder<Database, 'charges', O> {
  let q = applyFilters(base, f, {
    equals: ['member', 'invoice', 'resourceLog', 'booking'],
    date: 'dateTime',
    timestamps: true,
    search: 'description',
  });
  if (f.uninvoiced === true) q = q.where('invoice', 'is', null);
  if (f.uninvoiced === false) q = q.where('invoice', 'is not', null);
  return q;
}

export const invoiceFilterParams = {
  member: Id.optional(),
  space: Id.optional(),
  state: InvoiceState.optional(),
  ...dayRangeAndSearch('invoices dated', "the invoice's date", 'invoice number'),
};
export const InvoiceFilters = z.object(invoiceFilterParams);
export type InvoiceFilters = z.infer<typeof InvoiceFilters>;

export const filterInvoices = filterOn<'invoices', InvoiceFilters>({
  equals: ['member', 'space', 'state'],
  date: 'date',
  search: 'number',
});

export const paymentFilterParams = {
  member: Id.optional(),
  state: PaymentState.optional(),
  ...dayRange('payments dated', "the payment's date"),
};
export const PaymentFilters = z.object(paymentFilterParams);
export type PaymentFilters = z.infer<typeof PaymentFilters>;

export const filterPayments = filterOn<'payments', PaymentFilters>({
  equals: ['member', 'state'],
  date: 'date',
});

/** A range whose end lies before its start is bad input (400 naming `until`); else the filters. */
export function checkRange<F extends { from?: string; until?: string }>(f: F): F {
  if (f.from && f.until && f.until < f.from) {
    const message = 'must not lie before query.from';
    throw badRequest(`query.until: ${message}`, { validation: [{ path: 'until', message }] });
  }
  return f;
}

// ---- totals of the filtered lists (GET /charges/totals, /invoices/totals, /payments/totals) -----

const sumOf = <R>(rows: R[], amount: (row: R) => string) => sum(rows.map((r) => parseMoney(amount(r))));

/** Count and sums of the charges the filters select: the total, invoiced and not yet invoiced. */
export async function chargeTotals(db: Db, caller: Caller, f: ChargeFilters) {
  const rows = await filterCharges(visibleIn(db, 'charges', caller), checkRange(f))
    .select(['price', 'invoice'])
    .execute();
  const invoiced = sumOf(
    rows.filter((r) => r.invoice !== null),
    (r) => r.price,
  );
  const uninvoiced = sumOf(
    rows.filter((r) => r.invoice === null),
    (r) => r.price,
  );
  return {
    count: rows.length,
    total: formatMoney(invoiced + uninvoiced),
    invoiced: formatMoney(invoiced),
    uninvoiced: formatMoney(uninvoiced),
  };
}

/** Count and sums of the invoices the filters select: the total, paid, and open (unpaid ones). */
export async function invoiceTotals(db: Db, caller: Caller, f: InvoiceFilters) {
  const rows = await filterInvoices(visibleIn(db, 'invoices', caller), checkRange(f))
    .select(['total', 'paid', 'state'])
    .execute();
  const unpaid = rows.filter((r) => r.state === 'unpaid');
  return {
    count: rows.length,
    total: formatMoney(sumOf(rows, (r) => r.total)),
    paid: formatMoney(sumOf(rows, (r) => r.paid)),
    open: formatMoney(sumOf(unpaid, (r) => r.total) - sumOf(unpaid, (r) => r.paid)),
  };
}

/** Count and sums of the payments the filters select: the total, completed and pending. */
export async function paymentTotals(db: Db, caller: Caller, f: PaymentFilters) {
  const rows = await filterPayments(visibleIn(db, 'payments', caller), checkRange(f))
    .select(['total', 'state'])
    .execute();
  const of = (state: string) =>
    sumOf(
      rows.filter((r) => r.state === state),
      (r) => r.total,
    );
  return {
    count: rows.length,
    total: formatMoney(sumOf(rows, (r) => r.total)),
    completed: formatMoney(of('completed')),
    pending: formatMoney(of('pending')),
  };
}
