import { z } from 'zod';
import { DateString, Id, Stamps } from './common.js';

/** SEPA direct debit batches: pain.008 files of a space's open invoices (docs/PAYMENTS.md, "SEPA direct debit files"). */

export const SepaFileVersion = z
  .enum(['001.02', '001.08'])
  .describe('pain.008 version of the file: 001.02 (default, every bank) or 001.08');

export const SepaBatchCreate = z.strictObject({
  collectionDate: DateString.describe(
    'The day the bank debits the members (ReqdColltnDt): a banking day (TARGET2), after today in the space’s time zone',
  ),
  invoices: z
    .array(Id)
    .min(1)
    .max(1000)
    .optional()
    .describe('Only these open invoices; default: every open invoice of the caller’s space'),
});

/** SEPA return reason codes (R-transactions) a bank reports for a debit that came back. */
export const SepaReturnReason = z
  .enum([
    'AC01',
    'AC04',
    'AC06',
    'AC13',
    'AG01',
    'AG02',
    'AM04',
    'AM05',
    'BE05',
    'CNOR',
    'DNOR',
    'FF01',
    'MD01',
    'MD02',
    'MD06',
    'MD07',
    'MS02',
    'MS03',
    'RC01',
    'RR01',
    'RR02',
    'RR03',
    'RR04',
    'SL01',
  ])
  .describe(
    'The SEPA return reason code from the bank’s return notice, e.g. AC04 (account closed), AM04 (insufficient funds), MD01 (no mandate), MD06 (refund requested by the debtor), MS02 (refused by the debtor)',
  );

export const SepaReturnCreate = z.strictObject({
  invoice: Id.describe('The invoice whose debit came back'),
  reason: SepaReturnReason,
  date: DateString.optional().describe('The day of the return (default: today in the space’s time zone)'),
  notes: z.string().max(2000).nullable().optional(),
});

export const SepaCollectedCreate = z
  .strictObject({
    date: DateString.optional().describe(
      'The day the money arrived (default: the collection date), the date of the payments recorded',
    ),
  })
  .nullish();

export const SepaSkipReason = z.enum([
  'noMandate',
  'mandateNotSigned',
  'invalidMandateReference',
  'invalidIban',
  'invalidBic',
  'notEuro',
  'nothingToCollect',
  'paidThroughStripe',
  'inCollection',
]);

export const SepaDebitRecord = z.object({
  id: Id,
  invoice: Id,
  invoiceNumber: z.string(),
  member: Id,
  amount: z.string(),
  sequenceType: z.enum(['FRST', 'RCUR']),
  endToEndId: z.string(),
  mandateReference: z.string(),
  mandateDate: z.string(),
  iban: z.string(),
  bic: z.string().nullable(),
  debtorName: z.string(),
  state: z.enum(['inCollection', 'collected', 'returned']),
  returnReason: z.string().nullable(),
  returnNotes: z.string().nullable(),
  returnedDate: z.string().nullable(),
  payment: Id.nullable().describe('The payment recorded when the batch was collected'),
});

export const SepaBatchRecord = z.object({
  id: Id,
  account: Id,
  space: Id,
  collectionDate: z.string(),
  messageId: z.string().describe('The file’s message id (MsgId), unique per batch'),
  state: z.enum(['created', 'collected']),
  currency: z.literal('EUR'),
  total: z.string().describe('The sum of the debits in the file (CtrlSum)'),
  count: z.number().int().describe('The number of debits in the file (NbOfTxs)'),
  returned: z.number().int().describe('How many of the debits came back'),
  collectedDate: z.string().nullable(),
  creditor: z.object({
    name: z.string(),
    iban: z.string(),
    bic: z.string().nullable(),
    creditorId: z.string(),
  }),
  invoices: z.array(Id).describe('The invoices in the file'),
  debits: z.array(SepaDebitRecord),
  skipped: z.array(
    z.object({
      invoice: Id,
      invoiceNumber: z.string(),
      member: Id,
      reason: SepaSkipReason,
      message: z.string(),
    }),
  ),
  ...Stamps,
});
export type SepaBatchRecord = z.infer<typeof SepaBatchRecord>;
export type SepaDebitRecord = z.infer<typeof SepaDebitRecord>;
