import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { now } from '../db/crud.js';
import type { PaymentRequestsTable, PaymentsTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../identity/caller.js';
import { conflict, notFound, unprocessable } from '../errors.js';
import { formatMoney, parseMoney } from './money.js';

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
