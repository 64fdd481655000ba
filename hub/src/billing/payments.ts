import { randomBytes } from 'node:crypto';
import type {
  PaymentCreate as PaymentCreateBody,
  PaymentUpdate as PaymentUpdateBody,
} from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { z } from 'zod';
import { insertRow } from '../db/collection-rows.js';
import { type Db, defined } from '../db/crud.js';
import { columnsOf, referencedRow, requiredRow, stampsOf } from '../db/records.js';
import type { PaymentRequestsTable, PaymentsTable } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';
import type { Notifications } from '../context.js';
import { visibleIn } from './list-filters.js';
import { conflict, unprocessable } from '../errors.js';
import { allocatePayment, allocationsOf, releasePayment } from './invoices.js';
import { localTime } from './local-time.js';
import { formatMoney, parseMoney } from '../kernel/money.js';
import { billingSettingsFor } from './settings.js';
import { spaceTimeZone } from '../spaces/spaces.repository.js';
import { invoiceStatesOf } from './invoices.repository.js';
import { insertPaymentRequest, markRequestsPaid } from './payments.repository.js';

type PaymentCreate = z.infer<typeof PaymentCreateBody>;
type PaymentUpdate = z.infer<typeof PaymentUpdateBody>;

export type PaymentRow = Selectable<PaymentsTable>;
export type PaymentRequestRow = Selectable<PaymentRequestsTable>;

/** Payment records of a page of rows, the invoices they settle read at once. */
export async function paymentRecords(db: Db, rows: PaymentRow[]) {
  const byPayment = await allocationsOf(db, 'payment', rows);
  return rows.map((row) => {
    const mine = byPayment.get(row.id) ?? [];
    return {
      ...columnsOf(row, ['id', 'account', 'member', 'date']),
      total: formatMoney(parseMoney(row.total)),
      state: row.state as 'completed' | 'pending',
      method: row.method,
      invoices: mine.map((a) => a.invoice),
      allocations: mine.map((a) => ({ invoice: a.invoice, amount: formatMoney(parseMoney(a.amount)) })),
      notes: row.notes,
      ...stampsOf(row),
    };
  });
}

export const visiblePayments = (db: Db, caller: Caller) => visibleIn(db, 'payments', caller);

/**
 * POST /payments: money received from a member, put on the invoices named (or the oldest open).
 * A completed payment tells the member (`notifications`, in this transaction).
 */
export async function createPayment(
  trx: Db,
  caller: Caller,
  body: PaymentCreate,
  at: Date,
  notifications?: Pick<Notifications, 'payment'>,
): Promise<PaymentRow> {
  const member = await referencedRow(trx, 'members', {
    id: body.member,
    account: caller.accountId,
    field: 'member',
    noun: 'Member',
  });
  if (body.invoices && body.state === 'pending') {
    throw unprocessable('A pending payment settles invoices when it is completed; send invoices then', {
      invoices: 'pending',
    });
  }
  await checkInvoicesOf(trx, member.id, body.invoices);
  const date = body.date ?? localTime(at, await spaceTimeZone(trx, member.space)).date;
  const payment = await insertRow(
    trx,
    'payments',
    {
      account: member.account,
      member: member.id,
      date,
      total: formatMoney(parseMoney(body.total)),
      state: body.state ?? 'completed',
      method: body.method ?? 'manual',
      notes: body.notes ?? null,
    },
    { at: at.toISOString(), by: caller.memberId },
  );
  await allocatePayment(trx, payment, body.invoices ?? null, at.toISOString());
  if (payment.state === 'completed') await paymentReceived(trx, payment, at.toISOString(), notifications);
  return payment;
}

/** Tells the member that a completed payment was received (through the notifications port). */
export async function paymentReceived(
  trx: Db,
  payment: PaymentRow,
  at: string,
  notifications: Pick<Notifications, 'payment'> | undefined,
): Promise<void> {
  if (!notifications) return;
  const member = await requiredRow(trx, 'members', payment.member);
  const { currency } = await billingSettingsFor(trx, member.space, { at });
  await notifications.payment(trx, {
    account: payment.account,
    member: payment.member,
    paymentId: payment.id,
    total: formatMoney(parseMoney(payment.total)),
    currency,
    outcome: 'received',
    at,
  });
}

/**
 * The columns of a payment's change (PUT /payments/{id}); a pending payment names no invoices,
 * and the invoices named must be the member's open ones.
 */
export async function paymentChanges(trx: Db, row: PaymentRow, body: PaymentUpdate) {
  const { lockVersion: _, invoices, total, ...rest } = body;
  if (invoices && (rest.state ?? row.state) === 'pending') {
    throw unprocessable('A pending payment settles invoices when it is completed', { invoices: 'pending' });
  }
  await checkInvoicesOf(trx, row.member, invoices);
  return defined({ ...rest, total: total === undefined ? undefined : formatMoney(parseMoney(total)) });
}

/**
 * After a payment changed: when its amount, state or invoices changed, it comes off its invoices
 * and goes on again (a completed payment settles, a pending one does not).
 */
export async function paymentChanged(
  trx: Db,
  before: PaymentRow,
  after: PaymentRow,
  body: Pick<PaymentUpdate, 'invoices' | 'total'>,
  at: string,
  notifications?: Pick<Notifications, 'payment'>,
): Promise<void> {
  const { invoices } = body;
  const changed = invoices !== undefined || body.total !== undefined || after.state !== before.state;
  if (!changed) return;
  await releasePayment(trx, after.id, at);
  if (after.state === 'completed' && before.state !== 'completed') {
    await markRequestsPaid(trx, after.id, at);
    await paymentReceived(trx, after, at, notifications);
  }
  await allocatePayment(trx, after, invoices ?? null, at);
}

export async function checkInvoicesOf(db: Db, memberId: number, invoiceIds: number[] | undefined) {
  if (!invoiceIds || invoiceIds.length === 0) return;
  const rows = await invoiceStatesOf(db, memberId, invoiceIds);
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

/** Asks a member to pay: bank transfer (ManualTransferProvider), Stripe (billing/stripe.ts StripePaymentProvider). */
export interface PaymentProvider {
  readonly name: string;
  request(input: {
    reference: string;
    total: string;
    currency: string;
    member: { id: number; firstName: string; lastName: string; emailAddress: string | null };
    /** The pending payment asked for. */
    payment: { id: number; account: number };
  }): Promise<{
    instructions: string;
    /** The provider that took the request, when not `name` (a provider may hand a request on). */
    provider?: string;
  }>;
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
  updatedBy: number,
  at: string,
): Promise<PaymentRequestRow> {
  if (payment.state === 'completed') {
    throw conflict('This payment is already completed; there is nothing to request', { alreadyPaid: true });
  }
  const member = await requiredRow(db, 'members', payment.member);
  const { currency } = await billingSettingsFor(db, member.space, { at });
  const reference = `P${payment.id}-${randomBytes(4).toString('hex').toUpperCase()}`;
  const total = formatMoney(parseMoney(payment.total));
  const asked = await provider.request({
    reference,
    total,
    currency,
    member,
    payment: { id: payment.id, account: payment.account },
  });
  return insertPaymentRequest(db, {
    account: payment.account,
    payment: payment.id,
    member: payment.member,
    total,
    notes: notes ?? payment.notes ?? null,
    state: 'requested',
    provider: asked.provider ?? provider.name,
    reference,
    instructions: asked.instructions,
    createdAt: at,
    updatedAt: at,
    updatedBy,
  });
}
