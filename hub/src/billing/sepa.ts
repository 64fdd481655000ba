import { randomBytes } from 'node:crypto';
import type {
  SepaBatchCreate,
  SepaBatchRecord,
  SepaCollectedCreate,
  SepaReturnCreate,
} from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { z } from 'zod';
import { insertRow, updateRow } from '../db/collection-rows.js';
import { type Db, parseJson } from '../db/crud.js';
import { groupBy } from '../db/records.js';
import type { PaymentsTable, SepaBatchesTable } from '../db/schema.js';
import { conflict, notFound, unprocessable } from '../errors.js';
import { accountOf, type Caller } from '../kernel/caller.js';
import { parseMoney, roundToCents } from '../kernel/money.js';
import { spaceTimeZone } from '../spaces/spaces.repository.js';
import { allocatePayment, emitInvoice, releasePayment, settleMember } from './invoices.js';
import { paymentReceived } from './payments.js';
import type { Notifications } from '../context.js';
import { localTime } from './local-time.js';
import {
  compactIban,
  isBankingDay,
  isValidCreditorId,
  isValidMandateReference,
  nextBankingDay,
  type SepaCreditor,
  type SepaDebit,
  type SepaFile,
  type SepaVersion,
  sepaAmount,
  sepaIdentifier,
  sepaText,
  sepaXml,
  validBic,
  validIban,
  ibanTools,
} from './sepa-xml.js';
import {
  debitsInCollection,
  debitsOfBatches,
  deletePaymentRow,
  deleteSepaBatch,
  insertSepaBatch,
  insertSepaDebits,
  sepaBatchRow,
  touchBatch,
  unpaidInvoicesOfSpace,
  usedMandates,
  writeDebit,
} from './sepa.repository.js';
import { billingSettingsFor } from './settings.js';

/**
 * SEPA direct debit batches (docs/PAYMENTS.md, "SEPA direct debit files"): a space that collects through its own bank
 * turns its open invoices into a pain.008 file; the invoices are in collection until the batch
 * is recorded as collected (payments settle them) or a debit comes back (the invoice is open
 * again).
 */

export type SepaBatchRow = Selectable<SepaBatchesTable>;
type Skipped = SepaBatchRecord['skipped'][number];
type Method = {
  type?: string;
  iban?: string | null;
  bic?: string | null;
  accountOwnerName?: string | null;
  mandateReference?: string | null;
  mandateDate?: string | null;
};

/** The default mandate reference of a member, as the mandate preview shows it. */
export const defaultMandateReference = (memberId: number) => `M${String(memberId).padStart(8, '0')}`;

/**
 * The creditor of the space's files, from its billing settings; 422 naming the setting when
 * SEPA is off or a setting is missing or not valid.
 */
function creditorOf(settings: Record<string, unknown>): SepaCreditor {
  const text = (name: string) => {
    const v = settings[name];
    return typeof v === 'string' && v.trim() ? v.trim() : null;
  };
  const refuse = (field: string, problem: 'missing' | 'invalid' | 'off', message: string) =>
    unprocessable(`${message} (billing settings: ${field})`, { [field]: problem, field });
  if (settings.enableSepa !== 1 && settings.enableSepa !== true) {
    throw refuse('enableSepa', 'off', 'SEPA direct debit is not enabled for this space');
  }
  const creditorId = text('sepaCreditorId')?.replace(/\s+/g, '').toUpperCase() ?? null;
  if (!creditorId) throw refuse('sepaCreditorId', 'missing', 'The space has no SEPA creditor id');
  if (!isValidCreditorId(creditorId)) {
    throw refuse('sepaCreditorId', 'invalid', `The space’s SEPA creditor id ${creditorId} is not valid`);
  }
  const iban = text('sepaIban') ? compactIban(text('sepaIban')!) : null;
  if (!iban) throw refuse('sepaIban', 'missing', 'The space has no IBAN to collect into');
  if (!validIban(iban)) throw refuse('sepaIban', 'invalid', `The space’s IBAN ${iban} is not valid`);
  const bicText = text('sepaBic')?.replace(/\s+/g, '').toUpperCase() ?? null;
  if (bicText && !validBic(bicText)) {
    throw refuse('sepaBic', 'invalid', `The space’s BIC ${bicText} is not valid`);
  }
  const name = sepaText(text('sepaAccountOwnerName') ?? '', 70);
  if (!name) throw refuse('sepaAccountOwnerName', 'missing', 'The space has no account owner name');
  return { name, iban, bic: bicText, creditorId };
}

/** 422 unless the collection date is a banking day after today (the space's day). */
function checkCollectionDate(date: string, today: string): void {
  const refuse = (problem: string, message: string) =>
    unprocessable(message, { collectionDate: problem, field: 'collectionDate' });
  if (date < today) throw refuse('past', `The collection date ${date} is in the past`);
  if (date === today) {
    throw refuse(
      'tooSoon',
      `The collection date ${date} is today: the bank needs the file at least one banking day before; the earliest is ${nextBankingDay(today)}`,
    );
  }
  if (!isBankingDay(date)) {
    throw refuse(
      'notBankingDay',
      `The collection date ${date} is not a banking day (weekends, 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December); the next one is ${nextBankingDay(date)}`,
    );
  }
}

/**
 * POST /sepa-batches: the open invoices of the caller's space (or the ones named) that can be
 * collected become a batch of debits; the others are listed as skipped, each with its reason.
 * Runs in a transaction; the space's billing settings row is locked first, so two batches made
 * at once never take the same invoice.
 */
export async function createSepaBatch(
  trx: Db,
  caller: Caller,
  body: z.infer<typeof SepaBatchCreate>,
  now: Date,
): Promise<SepaBatchRow> {
  const at = now.toISOString();
  const spaceId = caller.spaceId;
  const today = localTime(now, await spaceTimeZone(trx, spaceId)).date;
  checkCollectionDate(body.collectionDate, today);
  const settings = await billingSettingsFor(trx, spaceId, { forUpdate: true, at });
  const creditor = creditorOf(settings as unknown as Record<string, unknown>);

  const invoices = await unpaidInvoicesOfSpace(trx, spaceId, body.invoices ?? null);
  if (body.invoices) {
    const missing = body.invoices.filter((id) => !invoices.some((i) => i.id === id));
    if (missing.length > 0) {
      throw unprocessable(`Invoices ${missing.join(', ')} are not open invoices of this space`, {
        invoices: missing,
        field: 'invoices',
      });
    }
  }
  const collecting = new Map(
    (
      await debitsInCollection(
        trx,
        invoices.map((i) => i.id),
      )
    ).map((d) => [d.invoice, d.batch]),
  );
  const used = new Set(
    (await usedMandates(trx, [...new Set(invoices.map((i) => i.member))])).map(
      (m) => `${m.member}\u0000${m.mandateReference}`,
    ),
  );

  const debits: (SepaDebit & { invoice: number; member: number })[] = [];
  const skipped: Skipped[] = [];
  for (const invoice of invoices) {
    const skip = (reason: Skipped['reason'], message: string) =>
      skipped.push({
        invoice: invoice.id,
        invoiceNumber: invoice.number,
        member: invoice.member,
        reason,
        message,
      });
    const batch = collecting.get(invoice.id);
    if (batch !== undefined) {
      skip('inCollection', `Invoice ${invoice.number} is in collection in batch ${batch}`);
      continue;
    }
    const amount = roundToCents(parseMoney(invoice.total) - parseMoney(invoice.paid));
    if (amount <= 0n) {
      skip('nothingToCollect', `Invoice ${invoice.number} has nothing left to pay`);
      continue;
    }
    if (invoice.currency !== 'EUR') {
      skip('notEuro', `Invoice ${invoice.number} is in ${invoice.currency}; SEPA collects euros only`);
      continue;
    }
    const method = parseJson<Method & { provider?: string }>(invoice.paymentMethod);
    if (method?.provider === 'stripe') {
      // A mandate saved at Stripe is collected by Stripe (the billing run), not by this file.
      skip('paidThroughStripe', 'The member pays through Stripe (a card or a mandate saved there)');
      continue;
    }
    if (method?.type !== 'sepa') {
      skip('noMandate', 'The member has no SEPA direct debit mandate (payment method)');
      continue;
    }
    if (!method.mandateDate) {
      skip('mandateNotSigned', 'The member’s mandate has no signature date (mandateDate)');
      continue;
    }
    if (method.mandateDate > today) {
      skip('mandateNotSigned', `The member’s mandate is dated ${method.mandateDate}, after today`);
      continue;
    }
    const iban = method.iban ? compactIban(method.iban) : '';
    if (!iban || !validIban(iban)) {
      skip(
        'invalidIban',
        iban ? `The member’s IBAN ${iban} is not valid` : 'The member’s mandate has no IBAN',
      );
      continue;
    }
    if (!ibanTools().isSEPACountry(iban.slice(0, 2))) {
      skip('invalidIban', `The member’s IBAN ${iban} is not of a SEPA country`);
      continue;
    }
    const bic = method.bic ? method.bic.replace(/\s+/g, '').toUpperCase() : null;
    if (bic && !validBic(bic)) {
      skip('invalidBic', `The member’s BIC ${bic} is not valid`);
      continue;
    }
    const mandateReference = method.mandateReference ?? defaultMandateReference(invoice.member);
    if (!isValidMandateReference(mandateReference)) {
      skip(
        'invalidMandateReference',
        `The mandate reference "${mandateReference}" holds characters a bank does not take (letters, digits and / - ? : ( ) . , ' + only, no spaces)`,
      );
      continue;
    }
    const debtorName =
      sepaText(method.accountOwnerName ?? '', 70) ||
      sepaText(invoice.recipientName ?? '', 70) ||
      sepaText(`${invoice.firstName} ${invoice.lastName}`, 70) ||
      `Member ${invoice.member}`;
    debits.push({
      invoice: invoice.id,
      member: invoice.member,
      endToEndId: sepaIdentifier(invoice.number),
      amount: sepaAmount(amount),
      sequenceType: used.has(`${invoice.member}\u0000${mandateReference}`) ? 'RCUR' : 'FRST',
      mandateReference,
      mandateDate: method.mandateDate,
      debtorName,
      iban,
      bic,
      remittance: sepaText(`Invoice ${invoice.number}`, 140),
    });
  }
  if (debits.length === 0) {
    throw unprocessable('No open invoice of this space can be collected by SEPA direct debit', {
      noInvoices: true,
      skipped,
    });
  }

  const total = sepaAmount(debits.reduce((s, d) => s + parseMoney(d.amount), 0n));
  const messageId = `SEPA-${body.collectionDate.replaceAll('-', '')}-${randomBytes(6).toString('hex').toUpperCase()}`;
  const batch = await insertSepaBatch(trx, {
    account: caller.accountId,
    space: spaceId,
    collectionDate: body.collectionDate,
    messageId,
    state: 'created',
    total,
    count: debits.length,
    creditor: JSON.stringify(creditor),
    skipped: JSON.stringify(skipped),
    collectedDate: null,
    createdAt: at,
    updatedAt: at,
    updatedBy: caller.memberId,
  });
  await insertSepaDebits(
    trx,
    debits.map((d) => ({
      account: caller.accountId,
      batch: batch.id,
      ...d,
      state: 'inCollection',
      createdAt: at,
      updatedAt: at,
    })),
  );
  for (const d of debits)
    await emitInvoice(trx, 'invoice_updated', { id: d.invoice, account: caller.accountId });
  return batch;
}

/** The batch records of a page of rows, their debits read at once. */
export async function sepaBatchRecords(db: Db, rows: SepaBatchRow[]): Promise<SepaBatchRecord[]> {
  const byBatch = groupBy(
    await debitsOfBatches(
      db,
      rows.map((r) => r.id),
    ),
    (d) => d.batch,
  );
  return rows.map((row) => {
    const debits = (byBatch.get(row.id) ?? []).map((d) => ({
      id: d.id,
      invoice: d.invoice,
      invoiceNumber: d.invoiceNumber,
      member: d.member,
      amount: d.amount,
      sequenceType: d.sequenceType as 'FRST' | 'RCUR',
      endToEndId: d.endToEndId,
      mandateReference: d.mandateReference,
      mandateDate: d.mandateDate,
      iban: d.iban,
      bic: d.bic,
      debtorName: d.debtorName,
      state: d.state as 'inCollection' | 'collected' | 'returned',
      returnReason: d.returnReason,
      returnNotes: d.returnNotes,
      returnedDate: d.returnedDate,
      payment: d.payment,
    }));
    return {
      id: row.id,
      account: row.account,
      space: row.space,
      collectionDate: row.collectionDate,
      messageId: row.messageId,
      state: row.state as 'created' | 'collected',
      currency: 'EUR' as const,
      total: row.total,
      count: row.count,
      returned: debits.filter((d) => d.state === 'returned').length,
      collectedDate: row.collectedDate,
      creditor: JSON.parse(row.creditor) as SepaCreditor,
      invoices: debits.map((d) => d.invoice),
      debits,
      skipped: JSON.parse(row.skipped) as Skipped[],
      lockVersion: row.lockVersion,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      updatedBy: row.updatedBy,
    };
  });
}

/** A batch the caller sees (the account's; a superuser's any), else 404. */
export async function findSepaBatch(
  db: Db,
  caller: Caller,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<SepaBatchRow> {
  const row = await sepaBatchRow(db, accountOf(caller), id, options.forUpdate);
  if (!row) throw notFound('SEPA batch');
  return row;
}

/** The batch's pain.008 file in the given version: every debit it was made with. */
export async function sepaBatchFile(db: Db, batch: SepaBatchRow, version: SepaVersion): Promise<string> {
  const debits = await debitsOfBatches(db, [batch.id]);
  const file: SepaFile = {
    messageId: batch.messageId,
    createdAt: batch.createdAt,
    collectionDate: batch.collectionDate,
    creditor: JSON.parse(batch.creditor) as SepaCreditor,
    debits: debits.map((d) => ({
      endToEndId: d.endToEndId,
      amount: d.amount,
      sequenceType: d.sequenceType as 'FRST' | 'RCUR',
      mandateReference: d.mandateReference,
      mandateDate: d.mandateDate,
      debtorName: d.debtorName,
      iban: d.iban,
      bic: d.bic,
      remittance: d.remittance,
    })),
  };
  return sepaXml(file, version);
}

/** What the bank reported of a batch (`body`), with the batch read and locked, at `now` (`at`). */
interface BankReport<B> {
  trx: Db;
  caller: Caller;
  batch: SepaBatchRow;
  body: B;
  now: Date;
  at: string;
  notifications?: Pick<Notifications, 'payment'>;
}

/**
 * A change the bank reported of a batch (POST /sepa-batches/{id}/...): finds the batch the
 * caller sees and locks it until the transaction ends, applies the report, and answers the batch
 * as written.
 */
function bankReport<B>(apply: (report: BankReport<B>) => Promise<void>) {
  return async (
    trx: Db,
    caller: Caller,
    batchId: number,
    body: B,
    now: Date,
    notifications?: Pick<Notifications, 'payment'>,
  ): Promise<SepaBatchRow> => {
    const batch = await findSepaBatch(trx, caller, batchId, { forUpdate: true });
    await apply({ trx, caller, batch, body, now, at: now.toISOString(), notifications });
    return (await sepaBatchRow(trx, null, batch.id))!;
  };
}

/**
 * POST /sepa-batches/{id}/returns: the bank returned an invoice's debit. The invoice is open
 * again (a payment recorded when the batch was collected is removed), and the return with its
 * reason stays on the batch. A second return of the same debit -> 409.
 */
export const recordSepaReturn = bankReport<z.infer<typeof SepaReturnCreate>>(async (report) => {
  const { trx, caller, batch, body, now, at, notifications } = report;
  const debit = (await debitsOfBatches(trx, [batch.id])).find((d) => d.invoice === body.invoice);
  if (!debit) {
    throw unprocessable(`Invoice ${body.invoice} is not in batch ${batch.id}`, {
      invoice: 'notInBatch',
      field: 'invoice',
    });
  }
  if (debit.state === 'returned') {
    throw conflict(`The debit of invoice ${debit.invoiceNumber} is already recorded as returned`, {
      alreadyReturned: true,
    });
  }
  if (debit.payment !== null) {
    await releasePayment(trx, debit.payment, at);
    await deletePaymentRow(trx, debit.payment);
  }
  const date = body.date ?? localTime(now, await spaceTimeZone(trx, batch.space)).date;
  await writeDebit(
    trx,
    debit.id,
    {
      state: 'returned',
      returnReason: body.reason,
      returnNotes: body.notes ?? null,
      returnedDate: date,
      payment: null,
    },
    at,
  );
  await touchBatch(trx, batch, { at, by: caller.memberId });
  await emitInvoice(trx, 'invoice_updated', { id: debit.invoice, account: batch.account });
  // A returned debit is a failed payment: the member (and the admins) hear of it.
  await notifications?.payment(trx, {
    account: batch.account,
    member: debit.member,
    total: debit.amount,
    currency: 'EUR',
    outcome: 'failed',
    reason: `the bank returned the direct debit of invoice ${debit.invoiceNumber} (${body.reason})`,
    at,
  });
  // Money the member has on account may settle the open invoice now.
  await settleMember(trx, debit.member, at);
});

/**
 * POST /sepa-batches/{id}/collected: the bank credited the batch. Each debit still in
 * collection becomes a completed payment (method `sepa`) of its member, put on its invoice.
 * Debits that came back before stay open invoices. Twice -> 409.
 */
export const recordSepaCollected = bankReport<z.infer<typeof SepaCollectedCreate>>(async (report) => {
  const { trx, caller, batch, body, at, notifications } = report;
  if (batch.state === 'collected') {
    throw conflict(`Batch ${batch.id} is already recorded as collected`, { alreadyCollected: true });
  }
  const date = body?.date ?? batch.collectionDate;
  const collected = { state: 'collected', collectedDate: date };
  await updateRow(trx, 'sepa_batches', batch.id, batch.lockVersion, collected, { at, by: caller.memberId });
  const debits = (await debitsOfBatches(trx, [batch.id])).filter((d) => d.state === 'inCollection');
  for (const debit of debits) {
    // Out of collection first: the payment may then settle the invoice.
    await writeDebit(trx, debit.id, { state: 'collected' }, at);
    const payment = (await insertRow(
      trx,
      'payments',
      {
        account: batch.account,
        member: debit.member,
        date,
        total: debit.amount,
        state: 'completed',
        method: 'sepa',
        notes: `SEPA direct debit of invoice ${debit.invoiceNumber} (batch ${batch.id}, ${batch.messageId})`,
      },
      { at, by: caller.memberId },
    )) as Selectable<PaymentsTable>;
    await writeDebit(trx, debit.id, { payment: payment.id }, at);
    await allocatePayment(trx, payment, [debit.invoice], at);
    // Paid another way meanwhile: the money goes on the member's other open invoices.
    await allocatePayment(trx, payment, null, at);
    await paymentReceived(trx, payment, at, notifications);
  }
});

/**
 * DELETE /sepa-batches/{id}: a batch not sent after all. Its invoices leave collection; a batch
 * recorded as collected, or with a debit returned, was at the bank and stays (409).
 */
export async function discardSepaBatch(trx: Db, caller: Caller, batchId: number): Promise<void> {
  const batch = await findSepaBatch(trx, caller, batchId, { forUpdate: true });
  const debits = await debitsOfBatches(trx, [batch.id]);
  if (batch.state === 'collected' || debits.some((d) => d.state !== 'inCollection')) {
    throw conflict(`Batch ${batch.id} was at the bank (collected or a debit returned); it stays on record`, {
      atBank: true,
    });
  }
  await deleteSepaBatch(trx, batch.id);
  for (const d of debits)
    await emitInvoice(trx, 'invoice_updated', { id: d.invoice, account: batch.account });
}
