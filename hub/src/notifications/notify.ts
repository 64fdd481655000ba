import type { Db } from '../db/crud.js';
import type { EventInput, EventNotifier } from '../db/outbox.js';
import { noteOutboxWrite } from '../db/outbox.js';
import { memberBalance } from '../billing/balance.js';
import { formatMoney, parseMoney } from '../kernel/money.js';
import type { PaymentNotice } from '../context.js';
import { problemReportRecipients } from '../problems/recipients.js';
import { type NotificationKind, wants } from './kinds.js';
import { adminsOf, insertNotification, lastPaymentOf, recipientOf } from './notifications.repository.js';

export interface Notice {
  account: number;
  member: number;
  kind: NotificationKind;
  params: Record<string, unknown>;
  /** Periodic and repeatable notices: the same key is queued once ever. */
  dedupeKey?: string;
  /** Now, on the hub's clock (ISO). */
  at: string;
}

/**
 * Queues a mail in the transaction `trx` (a rolled-back change queues nothing), when the member
 * has an e-mail address and wants this kind. True when queued.
 */
export async function notify(trx: Db, n: Notice): Promise<boolean> {
  const member = await recipientOf(trx, n.member);
  if (!member?.emailAddress || member.account !== n.account) return false;
  if (!(await wants(trx, n.member, n.kind))) return false;
  const queued = await insertNotification(trx, {
    account: n.account,
    member: n.member,
    kind: n.kind,
    params: n.params,
    dedupeKey: n.dedupeKey ?? null,
    createdAt: n.at,
  });
  if (queued) noteOutboxWrite();
  return queued;
}

/** The same notice to each admin and owner of the account (each with their own choice). */
export async function notifyAdmins(trx: Db, n: Omit<Notice, 'member'>): Promise<number> {
  let queued = 0;
  for (const admin of await adminsOf(trx, n.account)) {
    const key = n.dedupeKey ? `${n.dedupeKey}:${admin}` : undefined;
    if (await notify(trx, { ...n, member: admin, dedupeKey: key })) queued++;
  }
  return queued;
}

/**
 * A member's payment was received (a completed payment) or failed: the member hears of it, and
 * for a failure the admins too. Call it in the transaction that records the payment.
 */
export async function notifyPayment(trx: Db, p: PaymentNotice): Promise<void> {
  const params = { paymentId: p.paymentId ?? null, total: p.total, currency: p.currency, reason: p.reason };
  if (p.outcome === 'received') {
    await notify(trx, { account: p.account, member: p.member, kind: 'paymentReceived', params, at: p.at });
    return;
  }
  await notify(trx, { account: p.account, member: p.member, kind: 'paymentFailed', params, at: p.at });
  const member = await recipientOf(trx, p.member);
  const memberName = member ? `${member.firstName} ${member.lastName ?? ''}`.trim() : `#${p.member}`;
  await notifyAdmins(trx, {
    account: p.account,
    kind: 'memberPaymentFailed',
    params: { ...params, memberName },
    at: p.at,
  });
}

/** A member's key card was reported lost (and blocked). */
export function notifyCardLost(
  trx: Db,
  card: { account: number; member: number; at: string },
): Promise<boolean> {
  return notify(trx, { ...card, kind: 'cardLost', params: {} });
}

/**
 * Below this a prepaid balance is low: a charge that takes it from this or more to less tells
 * the member, once per payment (a new payment starts again).
 */
const lowBalance = 0n;

const slotKey = (b: Record<string, any>) => `${b.fromDateTime}/${b.untilDateTime}/${b.resource}/${b.member}`;

/** What the events that can notify mean for the mails (the others are never looked at). */
const fromEvent: Record<
  string,
  (trx: Db, details: Record<string, any>, account: number, at: string) => Promise<void>
> = {
  invoice_created: async (trx, d, account, at) => {
    const inv = d.invoice;
    if (!inv || inv.state === 'cancelled') return;
    await notify(trx, {
      account,
      member: inv.member,
      kind: 'invoiceIssued',
      params: {
        invoiceId: inv.id,
        number: inv.number,
        total: inv.total,
        currency: inv.currency,
        dueDate: inv.dueDate ?? null,
      },
      at,
    });
  },
  booking_created: (trx, d, account, at) => bookingNotice(trx, 'bookingMade', d, account, at),
  booking_updated: (trx, d, account, at) =>
    bookingNotice(
      trx,
      d.booking?.state === 'cancelled' ? 'bookingCancelled' : 'bookingChanged',
      d,
      account,
      at,
    ),
  booking_deleted: (trx, d, account, at) =>
    d.booking?.state === 'cancelled'
      ? Promise.resolve()
      : bookingNotice(trx, 'bookingCancelled', d, account, at),
  problemReport_created: async (trx, d, account, at) => {
    const report = d.problemReport;
    if (!report) return;
    const reporter = report.member ? await recipientOf(trx, report.member) : undefined;
    const reporterName = reporter ? `${reporter.firstName} ${reporter.lastName ?? ''}`.trim() : 'A member';
    // The maintainers of the machine's type, else the admins (problems/recipients.ts).
    for (const r of await problemReportRecipients(trx, report)) {
      if (r.memberId === report.member) continue;
      await notify(trx, {
        account,
        member: r.memberId,
        kind: 'problemReported',
        params: {
          reportId: report.id,
          resourceName: d.resource?.name ?? `#${report.resource}`,
          severity: report.severity,
          description: report.description,
          reporterName,
        },
        dedupeKey: `problemReported:${report.id}:${r.memberId}`,
        at,
      });
    }
  },
  charge_created: async (trx, d, account, at) => {
    const charge = d.charge;
    if (!charge?.member) return;
    const price = parseMoney(charge.price);
    if (price <= 0n) return;
    const after = await memberBalance(trx, charge.member);
    if (!(after < lowBalance && after + price >= lowBalance)) return;
    await notify(trx, {
      account,
      member: charge.member,
      kind: 'balanceLow',
      params: { balance: formatMoney(after) },
      dedupeKey: `balanceLow:${charge.member}:${await lastPaymentOf(trx, charge.member)}`,
      at,
    });
  },
};

async function bookingNotice(
  trx: Db,
  kind: NotificationKind,
  d: Record<string, any>,
  account: number,
  at: string,
): Promise<void> {
  const b = d.booking;
  if (!b) return;
  // Made and changed share a key per slot: a change that keeps the time and the machine (notes,
  // charging) mails nothing; cancelling is once per booking.
  const dedupeKey =
    kind === 'bookingCancelled' ? `bookingCancelled:${b.id}` : `booking:${b.id}:${slotKey(b)}`;
  await notify(trx, {
    account,
    member: b.member,
    kind,
    params: {
      bookingId: b.id,
      resourceName: d.resource?.name ?? `#${b.resource}`,
      from: b.fromDateTime,
      until: b.untilDateTime,
    },
    dedupeKey,
    at,
  });
}

/** The outbox's hook (db/outbox.ts): only these event types are looked at, at the cost of a set lookup. */
export const eventNotifier: EventNotifier = {
  types: new Set(Object.keys(fromEvent)),
  async notify(trx: Db, input: EventInput, details: Record<string, unknown>, at: string) {
    await fromEvent[input.type]?.(trx, details as Record<string, any>, input.account, at);
  },
};
