import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { now } from '../db/crud.js';
import type { PaymentRequestsTable, PaymentsTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../http/auth.js';
import { conflict, notFound, unprocessable } from '../http/errors.js';
import { refreshInvoice } from './invoices.js';
import { type Amount, formatMoney, min, parseMoney, sum } from './money.js';

export type PaymentRow = Selectable<PaymentsTable>;
export type PaymentRequestRow = Selectable<PaymentRequestsTable>;

export async function paymentRecord(db: Db, row: PaymentRow) {
  const allocations = await db
    .selectFrom('payment_allocations')
    .select(['invoice', 'amount'])
    .where('payment', '=', row.id)
    .orderBy('invoice')
    .execute();
  return {
    id: row.id,
    account: row.account,
    member: row.member,
    date: row.date,
    total: formatMoney(parseMoney(row.total)),
    state: row.state as 'completed' | 'pending',
    method: row.method,
    invoices: allocations.map((a) => a.invoice),
    allocations: allocations.map((a) => ({ invoice: a.invoice, amount: formatMoney(parseMoney(a.amount)) })),
    notes: row.notes,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

export function visiblePayments(db: Db, caller: Caller) {
  let query = db.selectFrom('payments');
  if (!caller.superuser) query = query.where('payments.account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('payments.member', '=', caller.memberId);
  return query;
}

export async function findPayment(db: Db, caller: Caller, id: number): Promise<PaymentRow> {
  const row = await visiblePayments(db, caller).selectAll().where('payments.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Payment');
  return row;
}

/**
 * A member's prepaid balance: everything they have paid (completed payments) minus everything
 * charged to them (every charge, invoiced or not; charges of a cancelled invoice are uninvoiced
 * again and still count once). Package fees are charges, so they count too.
 */
export async function memberBalance(db: Db, memberId: number): Promise<Amount> {
  const payments = await db
    .selectFrom('payments')
    .select('total')
    .where('member', '=', memberId)
    .where('state', '=', 'completed')
    .execute();
  const charges = await db.selectFrom('charges').select('price').where('member', '=', memberId).execute();
  return sum(payments.map((p) => parseMoney(p.total))) - sum(charges.map((c) => parseMoney(c.price)));
}

async function allocated(db: Db, paymentId: number): Promise<Amount> {
  const rows = await db
    .selectFrom('payment_allocations')
    .select('amount')
    .where('payment', '=', paymentId)
    .execute();
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
): Promise<void> {
  if (payment.state !== 'completed') return;
  let available = parseMoney(payment.total) - (await allocated(db, payment.id));
  if (available <= 0n) return;
  let query = db
    .selectFrom('invoices')
    .selectAll()
    .where('member', '=', payment.member)
    .where('state', '=', 'unpaid');
  if (invoiceIds) query = query.where('id', 'in', invoiceIds.length > 0 ? invoiceIds : [0]);
  const invoices = await query.orderBy('date').orderBy('id').execute();
  for (const invoice of invoices) {
    if (available <= 0n) break;
    const need = parseMoney(invoice.total) - parseMoney(invoice.paid);
    const give = min(available, need);
    if (give <= 0n) continue;
    const existing = await db
      .selectFrom('payment_allocations')
      .select('amount')
      .where('payment', '=', payment.id)
      .where('invoice', '=', invoice.id)
      .executeTakeFirst();
    if (existing) {
      await db
        .updateTable('payment_allocations')
        .set({ amount: formatMoney(parseMoney(existing.amount) + give) })
        .where('payment', '=', payment.id)
        .where('invoice', '=', invoice.id)
        .execute();
    } else {
      await db
        .insertInto('payment_allocations')
        .values({ payment: payment.id, invoice: invoice.id, amount: formatMoney(give) })
        .execute();
    }
    await refreshInvoice(db, invoice.id);
    available -= give;
  }
}

/** Applies every completed payment's unallocated rest to the member's open invoices. */
export async function settleMember(db: Db, memberId: number): Promise<void> {
  const payments = await db
    .selectFrom('payments')
    .selectAll()
    .where('member', '=', memberId)
    .where('state', '=', 'completed')
    .orderBy('date')
    .orderBy('id')
    .execute();
  for (const p of payments) await allocatePayment(db, p, null);
}

/** Takes a payment off all invoices (before it changes or goes). */
export async function releasePayment(db: Db, paymentId: number): Promise<void> {
  const rows = await db
    .selectFrom('payment_allocations')
    .select('invoice')
    .where('payment', '=', paymentId)
    .execute();
  await db.deleteFrom('payment_allocations').where('payment', '=', paymentId).execute();
  for (const r of rows) await refreshInvoice(db, r.invoice);
}

export async function checkInvoicesOf(db: Db, memberId: number, invoiceIds: number[] | undefined) {
  if (!invoiceIds || invoiceIds.length === 0) return;
  const rows = await db
    .selectFrom('invoices')
    .select(['id', 'state'])
    .where('member', '=', memberId)
    .where('id', 'in', invoiceIds)
    .execute();
  const missing = invoiceIds.filter((id) => !rows.some((r) => r.id === id));
  if (missing.length > 0) {
    throw unprocessable(`Invoices ${missing.join(', ')} are not invoices of this member`, {
      invoices: missing,
    });
  }
  const cancelled = rows.filter((r) => r.state === 'cancelled').map((r) => r.id);
  if (cancelled.length > 0) {
    throw unprocessable(`Invoices ${cancelled.join(', ')} are cancelled`, { cancelledInvoices: cancelled });
  }
}

// ---- payment requests -------------------------------------------------------------------------

/** Asks a member to pay; a real provider (Stripe, SEPA) would plug in here. */
export interface PaymentProvider {
  readonly name: string;
  request(input: {
    reference: string;
    total: string;
    currency: string;
    member: { id: number; firstName: string; lastName: string; emailAddress: string | null };
  }): Promise<{ instructions: string }>;
}

/** No payment provider is reachable from a self-hosted hub by default: members pay by bank transfer. */
export class ManualTransferProvider implements PaymentProvider {
  readonly name = 'manual';
  async request(input: { reference: string; total: string; currency: string }) {
    return {
      instructions: `Please transfer ${input.total} ${input.currency} and quote the reference ${input.reference}.`,
    };
  }
}

export function paymentRequestRecord(row: PaymentRequestRow) {
  return {
    id: row.id,
    payment: row.payment,
    member: row.member,
    total: formatMoney(parseMoney(row.total)),
    notes: row.notes,
    state: row.state as 'requested',
    provider: row.provider,
    reference: row.reference,
    instructions: row.instructions,
    createdAt: row.createdAt,
  };
}

export async function requestPayment(
  db: Db,
  provider: PaymentProvider,
  payment: PaymentRow,
  notes: string | null | undefined,
  currency: string,
  updatedBy: number,
): Promise<PaymentRequestRow> {
  if (payment.state === 'completed') {
    throw conflict('This payment is already completed; there is nothing to request', { alreadyPaid: true });
  }
  const member = await db
    .selectFrom('members')
    .selectAll()
    .where('id', '=', payment.member)
    .executeTakeFirstOrThrow();
  const reference = `P${payment.id}-${randomBytes(4).toString('hex').toUpperCase()}`;
  const total = formatMoney(parseMoney(payment.total));
  const { instructions } = await provider.request({ reference, total, currency, member });
  const at = now();
  return db
    .insertInto('payment_requests')
    .values({
      account: payment.account,
      payment: payment.id,
      member: payment.member,
      total,
      notes: notes ?? payment.notes ?? null,
      state: 'requested',
      provider: provider.name,
      reference,
      instructions,
      createdAt: at,
      updatedAt: at,
      updatedBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** When a pending payment completes, its open requests count as paid. */
export async function markRequestsPaid(db: Db, paymentId: number): Promise<void> {
  await db
    .updateTable('payment_requests')
    .set({ state: 'paid', updatedAt: now() })
    .where('payment', '=', paymentId)
    .where('state', '=', 'requested')
    .execute();
}
