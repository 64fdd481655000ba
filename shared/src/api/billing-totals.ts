import { z } from 'zod';

/**
 * Totals of a filtered billing list (`GET /charges/totals`, `/invoices/totals`,
 * `/payments/totals`): the same filters as the list, over every matching record, not one page.
 * Amounts are decimal strings, as everywhere in the API.
 */
export const ChargeTotals = z.object({
  count: z.number().int().describe('Charges that match the filters'),
  total: z.string().describe('Sum of their prices'),
  invoiced: z.string().describe('Sum of the prices of those on an invoice'),
  uninvoiced: z.string().describe('Sum of the prices of those on no invoice yet'),
});
export type ChargeTotals = z.infer<typeof ChargeTotals>;

export const InvoiceTotals = z.object({
  count: z.number().int().describe('Invoices that match the filters'),
  total: z.string().describe('Sum of their totals (cancellations count negative)'),
  paid: z.string().describe('Sum of what has been paid on them'),
  open: z.string().describe('What is still to be paid on the unpaid ones'),
});
export type InvoiceTotals = z.infer<typeof InvoiceTotals>;

export const PaymentTotals = z.object({
  count: z.number().int().describe('Payments that match the filters'),
  total: z.string().describe('Sum of their totals'),
  completed: z.string().describe('Sum of the completed ones'),
  pending: z.string().describe('Sum of the pending ones'),
});
export type PaymentTotals = z.infer<typeof PaymentTotals>;
