import { DateString, Id, InvoiceState, PaymentState } from '@makerspace/shared';
import type { SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import { likePattern } from '../db/crud.js';
import { badRequest } from '../errors.js';

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

export const chargeFilterParams = {
  member: Id.optional(),
  invoice: Id.optional(),
  uninvoiced: z
    .boolean()
    .optional()
    .describe('true: only charges on no invoice yet; false: only invoiced ones'),
  resourceLog: Id.optional(),
  booking: Id.optional(),
  from: from.describe('Only charges on or after this day (UTC, YYYY-MM-DD)'),
  until: until.describe('Only charges on or before this day (UTC, YYYY-MM-DD)'),
  q: z.string().max(200).optional().describe('Search text (description)'),
};
export const ChargeFilters = z.object(chargeFilterParams);
export type ChargeFilters = z.infer<typeof ChargeFilters>;

export function filterCharges<O>(
  base: SelectQueryBuilder<Database, 'charges', O>,
  f: ChargeFilters,
): SelectQueryBuilder<Database, 'charges', O> {
  let q = base;
  if (f.member) q = q.where('member', '=', f.member);
  if (f.invoice) q = q.where('invoice', '=', f.invoice);
  if (f.uninvoiced === true) q = q.where('invoice', 'is', null);
  if (f.uninvoiced === false) q = q.where('invoice', 'is not', null);
  if (f.resourceLog) q = q.where('resourceLog', '=', f.resourceLog);
  if (f.booking) q = q.where('booking', '=', f.booking);
  // dateTime is an ISO timestamp in UTC: a day string sorts before every time of that day.
  if (f.from) q = q.where('dateTime', '>=', f.from);
  if (f.until) q = q.where('dateTime', '<', nextDay(f.until));
  const text = f.q;
  if (text) q = q.where((eb) => eb(eb.fn('lower', [eb.ref('description')]), 'like', likePattern(text)));
  return q;
}

export const invoiceFilterParams = {
  member: Id.optional(),
  space: Id.optional(),
  state: InvoiceState.optional(),
  from: from.describe("Only invoices dated on or after this day (the invoice's date)"),
  until: until.describe("Only invoices dated on or before this day (the invoice's date)"),
  q: z.string().max(200).optional().describe('Search text (invoice number)'),
};
export const InvoiceFilters = z.object(invoiceFilterParams);
export type InvoiceFilters = z.infer<typeof InvoiceFilters>;

export function filterInvoices<O>(
  base: SelectQueryBuilder<Database, 'invoices', O>,
  f: InvoiceFilters,
): SelectQueryBuilder<Database, 'invoices', O> {
  let q = base;
  if (f.member) q = q.where('member', '=', f.member);
  if (f.space) q = q.where('space', '=', f.space);
  if (f.state) q = q.where('state', '=', f.state);
  if (f.from) q = q.where('date', '>=', f.from);
  if (f.until) q = q.where('date', '<=', f.until);
  const text = f.q;
  if (text) q = q.where((eb) => eb(eb.fn('lower', [eb.ref('number')]), 'like', likePattern(text)));
  return q;
}

export const paymentFilterParams = {
  member: Id.optional(),
  state: PaymentState.optional(),
  from: from.describe("Only payments dated on or after this day (the payment's date)"),
  until: until.describe("Only payments dated on or before this day (the payment's date)"),
};
export const PaymentFilters = z.object(paymentFilterParams);
export type PaymentFilters = z.infer<typeof PaymentFilters>;

export function filterPayments<O>(
  base: SelectQueryBuilder<Database, 'payments', O>,
  f: PaymentFilters,
): SelectQueryBuilder<Database, 'payments', O> {
  let q = base;
  if (f.member) q = q.where('member', '=', f.member);
  if (f.state) q = q.where('state', '=', f.state);
  if (f.from) q = q.where('date', '>=', f.from);
  if (f.until) q = q.where('date', '<=', f.until);
  return q;
}

/** A range whose end lies before its start is bad input (400 naming `until`); else the filters. */
export function checkRange<F extends { from?: string; until?: string }>(f: F): F {
  if (f.from && f.until && f.until < f.from) {
    const message = 'must not lie before query.from';
    throw badRequest(`query.until: ${message}`, { validation: [{ path: 'until', message }] });
  }
  return f;
}
