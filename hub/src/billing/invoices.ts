import type { WebhookEventType } from '@makerspace/shared';
import type { Db, TableRow } from '../db/crud.js';
import {
  columnsOf,
  groupBy,
  referencedRow,
  requiredRow,
  rowById,
  stampsOf,
  visibleRow,
} from '../db/records.js';
import type { Caller } from '../kernel/caller.js';
import { visibleIn } from './list-filters.js';
import { conflict, staleLockVersion, unprocessable } from '../errors.js';
import { chargeRecord, emitChargesUpdated } from './charges.js';
import { addPeriod, localTime } from './local-time.js';
import { type Amount, formatMoney, max, min, netOf, parseMoney, sum } from '../kernel/money.js';
import { billingSettingsFor } from './settings.js';
import { spaceTimeZone } from '../spaces/spaces.repository.js';
import { uninvoicedCharges } from './billing.repository.js';
import { chargesOfInvoice, putChargesOnInvoice, takeChargesOffInvoice } from './charges.repository.js';
import {
  allocatedAmounts,
  allocationOf,
  allocationsOfIds,
  deleteAllocationsOfInvoice,
  deleteAllocationsOfPayment,
  insertInvoice,
  unpaidInvoicesOf,
  writeAllocation,
  writeInvoiceCancelled,
  writeInvoicePaid,
} from './invoices.repository.js';
import { completedPaymentsOf } from './payments.repository.js';
import { advanceInvoiceNumber } from './settings.repository.js';
import { batchCollecting, latestDebitsOf } from './sepa.repository.js';
import { emitEvent } from '../db/outbox.js';
import { memberEventRecord } from '../identity/members.js';

export type InvoiceRow = TableRow<'invoices'>;
type PaymentRow = TableRow<'payments'>;

/**
 * The payment allocations of a page of invoices or payments, by the invoice's (or payment's) id,
 * read at once and ordered by the other side.
 */
export async function allocationsOf(db: Db, side: 'invoice' | 'payment', rows: { id: number }[]) {
  const ids = rows.map((r) => r.id);
  const allocations = ids.length ? await allocationsOfIds(db, side, ids) : [];
  return groupBy(allocations, (a) => a[side]);
}

/** Invoice records of a page of rows, their payments read at once; `details` adds the lines. */
export async function invoiceRecords(db: Db, rows: InvoiceRow[], embed: readonly string[] = []) {
  const byInvoice = await allocationsOf(db, 'invoice', rows);
  const debits = new Map(
    (
      await latestDebitsOf(
        db,
        rows.map((r) => r.id),
      )
    ).map((d) => [d.invoice, d]),
  );
  const records = [];
  for (const row of rows) {
    const record = invoiceFields(row, byInvoice.get(row.id) ?? [], debits.get(row.id));
    records.push(
      embed.includes('details')
        ? { ...record, _embedded: { details: await invoiceDetails(db, row) } }
        : record,
    );
  }
  return records;
}

export async function invoiceRecord(db: Db, row: InvoiceRow) {
  return (await invoiceRecords(db, [row]))[0];
}

/** An invoice's latest SEPA direct debit (billing/sepa.ts), as its `collection` shows it. */
type LatestDebit = Awaited<ReturnType<typeof latestDebitsOf>>[number];

function invoiceFields(
  row: InvoiceRow,
  allocations: { payment: number; amount: string }[],
  debit: LatestDebit | undefined,
) {
  const total = parseMoney(row.total);
  const paid = parseMoney(row.paid);
  return {
    ...columnsOf(row, ['id', 'account', 'space', 'member', 'date', 'dueDate', 'number']),
    state: row.state as 'unpaid' | 'paid' | 'cancelled',
    currency: row.currency,
    total: formatMoney(total),
    totalWithFees: formatMoney(total),
    totalPayable: formatMoney(row.state === 'cancelled' ? 0n : max(total - paid, 0n)),
    paid: formatMoney(paid),
    ...columnsOf(row, [
      'cancelledInvoice',
      'recipientName',
      'recipientCompany',
      'recipientAddress',
      'header',
      'footer',
      'text',
      'notes',
    ]),
    payments: allocations.map((a) => ({ payment: a.payment, amount: formatMoney(parseMoney(a.amount)) })),
    collection: debit
      ? {
          batch: debit.batch,
          state: debit.state as 'inCollection' | 'collected' | 'returned',
          collectionDate: debit.collectionDate,
          returnReason: debit.returnReason,
        }
      : null,
    ...stampsOf(row),
  };
}

/** Invoices the caller sees: admins their account's, plain members their own. */
export const visibleInvoices = (db: Db, caller: Caller) => visibleIn(db, 'invoices', caller);

export async function findInvoice(db: Db, caller: Caller, id: number): Promise<InvoiceRow> {
  return visibleRow(visibleInvoices(db, caller), 'invoices', id, 'Invoice');
}

/** Recomputes what has been paid on an invoice and whether it reads `paid`. */
export async function refreshInvoice(db: Db, invoiceId: number, at: string): Promise<void> {
  const invoice = await rowById(db, 'invoices', invoiceId);
  if (!invoice) return;
  const allocations = await allocatedAmounts(db, 'invoice', invoiceId);
  const paid = sum(allocations.map((a) => parseMoney(a.amount)));
  const state =
    invoice.state === 'cancelled' ? 'cancelled' : paid >= parseMoney(invoice.total) ? 'paid' : 'unpaid';
  const paidText = formatMoney(paid);
  if (state === invoice.state && paidText === invoice.paid) return;
  await writeInvoicePaid(db, invoiceId, paidText, state, at);
  // A payment settled (or stopped settling) it.
  await emitInvoice(db, 'invoice_updated', invoice);
}

export interface InvoiceInput {
  member: number;
  date?: string;
  dueDate?: string | null;
  header?: string | null;
  footer?: string | null;
  text?: string | null;
  notes?: string | null;
}

/**
 * What an invoice of a member's uninvoiced charges would be, computed without writing: the
 * invoice run's preview shows exactly this, and createInvoice writes exactly this. No charges ->
 * 422. `forUpdate` locks the space's billing settings row (invoice numbers are taken under it).
 */
export async function draftInvoice(
  db: Db,
  accountId: number,
  input: InvoiceInput,
  at: Date,
  options: { forUpdate: boolean },
) {
  const member = await referencedRow(db, 'members', {
    id: input.member,
    account: accountId,
    field: 'member',
    noun: 'Member',
  });
  const settings = await billingSettingsFor(db, member.space, {
    forUpdate: options.forUpdate,
    at: at.toISOString(),
  });
  const charges = await uninvoicedCharges(db, member.id);
  if (charges.length === 0) {
    throw unprocessable('This member has no charges that are not on an invoice yet', { noCharges: true });
  }
  const total = sum(charges.map((c) => parseMoney(c.price)));
  const date = input.date ?? localTime(at, await spaceTimeZone(db, member.space)).date;
  const dueDate =
    input.dueDate !== undefined
      ? input.dueDate
      : addPeriod(date, settings.defaultInvoiceDeadlineUnit ?? 'day', settings.defaultInvoiceDeadline ?? 14);
  const billing = member.hasBillingAddress === 1;
  const name = billing
    ? `${member.billingFirstName ?? ''} ${member.billingLastName ?? ''}`.trim()
    : `${member.firstName} ${member.lastName}`.trim();
  const addressLines = billing
    ? [
        member.billingAddress,
        member.billingAddress2,
        [member.billingZip, member.billingCity].filter(Boolean).join(' '),
        member.billingCountryCode,
      ]
    : [
        member.address,
        member.address2,
        [member.zip, member.city].filter(Boolean).join(' '),
        member.countryCode,
      ];
  return {
    member,
    settings,
    charges,
    total,
    date,
    dueDate,
    currency: settings.currency ?? 'EUR',
    recipientName: name || null,
    recipientCompany: (billing ? member.billingCompany : member.company) ?? null,
    recipientAddress: addressLines.filter((l) => l).join('\n') || null,
    header: input.header !== undefined ? input.header : settings.invoiceHeader,
    footer: input.footer !== undefined ? input.footer : settings.invoiceFooter,
    text: input.text ?? member.billingInvoiceText ?? null,
    notes: input.notes ?? null,
  };
}

/**
 * Invoices a member's uninvoiced charges (their draftInvoice). Must run inside a transaction: the
 * space's billing settings row is locked first (SELECT ... FOR UPDATE on PostgreSQL; SQLite has
 * one writer), so concurrent invoice runs take numbers one after the other, gapless and unique,
 * and never take the same charge twice. No charges -> 422 and no number is used.
 */
export async function createInvoice(
  trx: Db,
  accountId: number,
  input: InvoiceInput,
  at: Date,
  updatedBy: number | null,
): Promise<InvoiceRow> {
  const { member, settings, charges, total, ...draft } = await draftInvoice(trx, accountId, input, at, {
    forUpdate: true,
  });
  const number = `${settings.invoiceNumberPrefix ?? ''}${settings.nextInvoiceNumber}`;
  await advanceInvoiceNumber(trx, settings.id);
  const stamp = at.toISOString();
  const invoice = await insertInvoice(trx, {
    account: member.account,
    space: member.space,
    member: member.id,
    number,
    state: total <= 0n ? 'paid' : 'unpaid',
    total: formatMoney(total),
    paid: '0.00',
    cancelledInvoice: null,
    ...draft,
    createdAt: stamp,
    updatedAt: stamp,
    updatedBy,
  });
  const taken = await putChargesOnInvoice(
    trx,
    invoice.id,
    charges.map((c) => c.id),
    stamp,
  );
  if (taken !== charges.length) {
    throw conflict('Charges changed while the invoice was made; try again');
  }
  await emitInvoice(trx, 'invoice_created', invoice);
  await emitChargesUpdated(
    trx,
    charges.map((c) => c.id),
  );
  await settleMember(trx, member.id, stamp);
  return (await rowById(trx, 'invoices', invoice.id))!;
}

/**
 * Cancels an invoice: it keeps its number (numbers stay gapless), reads `cancelled`, its charges
 * are free to go on the next invoice, and payments on it are released to the member's other
 * open invoices (or their balance). Cancelling twice -> 409.
 */
export async function cancelInvoice(
  trx: Db,
  caller: Caller,
  id: number,
  lockVersion: number | undefined,
  at: string,
): Promise<void> {
  const invoice = await findInvoice(trx, caller, id);
  if (invoice.state === 'cancelled')
    throw conflict('The invoice is already cancelled', { alreadyCancelled: true });
  if (lockVersion !== undefined && lockVersion !== invoice.lockVersion) throw staleLockVersion();
  const batch = await batchCollecting(trx, id);
  if (batch !== null) {
    throw conflict(
      `The invoice is in collection in SEPA batch ${batch}: record its debit as returned (or discard the batch) first`,
      { inCollection: batch },
    );
  }
  if (!(await writeInvoiceCancelled(trx, id, invoice.lockVersion, { at, by: caller.memberId }))) {
    throw staleLockVersion();
  }
  const released = await takeChargesOffInvoice(trx, id, at);
  await emitChargesUpdated(trx, released);
  await deleteAllocationsOfInvoice(trx, id);
  // The cancelled invoice's event lists the charges it had.
  await emitInvoice(trx, 'invoice_updated', invoice, released);
  await settleMember(trx, invoice.member, at);
}

/** GET /invoices/{id}/details: charges with their net price, and totals per tax rate. */
export async function invoiceDetails(db: Db, invoice: InvoiceRow) {
  const charges = await chargesOfInvoice(db, invoice.id);
  const categories = new Map<string, Amount>();
  const records = charges.map((c) => {
    const record = chargeRecord(c);
    const gross = parseMoney(c.price);
    categories.set(record.taxPercent, (categories.get(record.taxPercent) ?? 0n) + gross);
    return { ...record, netPrice: formatMoney(netOf(gross, parseMoney(c.taxPercent))) };
  });
  const taxCategories = [...categories.entries()]
    .sort((a, b) => Number(parseMoney(a[0]) - parseMoney(b[0])))
    .map(([taxPercent, gross]) => {
      const net = netOf(gross, parseMoney(taxPercent));
      return { taxPercent, total: formatMoney(gross), net: formatMoney(net), tax: formatMoney(gross - net) };
    });
  const totalExcludingTax = sum(taxCategories.map((t) => parseMoney(t.net)));
  return {
    id: invoice.id,
    totalExcludingTax: formatMoney(totalExcludingTax),
    charges: records,
    taxCategories,
  };
}

/**
 * invoice_created/updated with the invoice as it is now in `db`, its charges (or the given ones:
 * a cancelled invoice lists the charges it had) and its member.
 */
export function emitInvoice(
  db: Db,
  type: Extract<WebhookEventType, `invoice_${string}`>,
  invoice: Pick<InvoiceRow, 'id' | 'account'>,
  chargeIds?: number[],
) {
  return emitEvent(db, {
    account: invoice.account,
    type,
    details: async () => {
      const row = await requiredRow(db, 'invoices', invoice.id);
      const charges = await chargesOfInvoice(db, row.id, chargeIds);
      return {
        invoice: await invoiceRecord(db, row),
        charges: charges.map(chargeRecord),
        member: await memberEventRecord(db, row.member),
      };
    },
  });
}

// ---- payments put on invoices ------------------------------------------------------------------

async function allocated(db: Db, paymentId: number): Promise<Amount> {
  const rows = await allocatedAmounts(db, 'payment', paymentId);
  return sum(rows.map((r) => parseMoney(r.amount)));
}

/**
 * Puts what is left of a completed payment on open invoices: the ones named, else the member's
 * oldest unpaid invoices first. An invoice reads `paid` once its allocations cover its total.
 */
export async function allocatePayment(
  db: Db,
  payment: PaymentRow,
  invoiceIds: number[] | null,
  at: string,
): Promise<void> {
  if (payment.state !== 'completed') return;
  let available = parseMoney(payment.total) - (await allocated(db, payment.id));
  if (available <= 0n) return;
  const invoices = await unpaidInvoicesOf(db, payment.member, invoiceIds);
  for (const invoice of invoices) {
    if (available <= 0n) break;
    const need = parseMoney(invoice.total) - parseMoney(invoice.paid);
    const give = min(available, need);
    if (give <= 0n) continue;
    const existing = await allocationOf(db, payment.id, invoice.id);
    const amount = existing ? parseMoney(existing.amount) + give : give;
    await writeAllocation(
      db,
      { payment: payment.id, invoice: invoice.id, amount: formatMoney(amount) },
      existing !== undefined,
    );
    await refreshInvoice(db, invoice.id, at);
    available -= give;
  }
}

/** Applies every completed payment's unallocated rest to the member's open invoices. */
export async function settleMember(db: Db, memberId: number, at: string): Promise<void> {
  const payments = await completedPaymentsOf(db, memberId);
  for (const p of payments) await allocatePayment(db, p, null, at);
}

/** Takes a payment off all invoices (before it changes or goes). */
export async function releasePayment(db: Db, paymentId: number, at: string): Promise<void> {
  const invoices = await deleteAllocationsOfPayment(db, paymentId);
  for (const invoice of invoices) await refreshInvoice(db, invoice, at);
}
