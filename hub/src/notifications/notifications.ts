import type { NotificationSettingsRecord, OutboxEntry } from '@makerspace/shared';
import type { Notifications } from '../context.js';
import type { Db } from '../db/crud.js';
import { notFound, unprocessable } from '../errors.js';
import {
  adminNotificationKinds,
  isAdminKind,
  kindsOf,
  memberNotificationKinds,
  type NotificationKind,
} from './kinds.js';
import { makeDue, outboxCounts, outboxOf, writeKinds } from './notifications.repository.js';
import { notifyCardLost, notifyPayment } from './notify.js';

/** The notifications port (context.ts), put into the context by hub.ts. */
export const notificationsPort: Notifications = {
  payment: notifyPayment,
  async cardLost(trx, card) {
    await notifyCardLost(trx, card);
  },
};

interface SettingsMember {
  id: number;
  account: number;
  privileges: string;
}

const adminOf = (m: SettingsMember) => m.privileges === 'admin' || m.privileges === 'owner';

/** A member's notification settings: every member kind, and the admin kinds for admins and owners. */
export async function notificationSettings(
  db: Db,
  member: SettingsMember,
): Promise<NotificationSettingsRecord> {
  const kinds = await kindsOf(db, member.id);
  const shown = adminOf(member)
    ? [...memberNotificationKinds, ...adminNotificationKinds]
    : memberNotificationKinds;
  return {
    member: member.id,
    ...Object.fromEntries(shown.map((k) => [k, kinds[k]])),
  } as NotificationSettingsRecord;
}

/** Changes the kinds named (the others keep their choice); admin kinds only for admins and owners. */
export async function changeNotificationSettings(
  db: Db,
  member: SettingsMember,
  change: Partial<Record<NotificationKind, boolean>>,
  at: string,
): Promise<NotificationSettingsRecord> {
  const refused = Object.keys(change).filter((k) => isAdminKind(k) && !adminOf(member));
  if (refused.length > 0) {
    throw unprocessable(`${refused.join(', ')}: only admins and owners receive these notifications`, {
      [refused[0]]: 'adminsOnly',
    });
  }
  const kinds = { ...(await kindsOf(db, member.id)), ...change };
  await writeKinds(db, member, JSON.stringify(kinds), at);
  return notificationSettings(db, member);
}

/** The account's outbox as admins see it: counts and the newest entries. */
export async function notificationOutbox(
  db: Db,
  accountId: number,
  options: { mailConfigured: boolean; limit: number; state?: string },
) {
  const [rows, counts] = await Promise.all([
    outboxOf(db, accountId, options.limit, options.state),
    outboxCounts(db, accountId),
  ]);
  const entries: OutboxEntry[] = rows.map((r) => ({
    id: r.id,
    member: r.member,
    memberName: r.firstName === null ? null : `${r.firstName} ${r.lastName ?? ''}`.trim(),
    kind: r.kind,
    subject: r.subject,
    state: r.state as OutboxEntry['state'],
    attempts: r.attempts,
    nextAttemptAt: r.nextAttemptAt,
    lastError: r.lastError,
    sentAt: r.sentAt,
    createdAt: r.createdAt,
  }));
  return {
    mailConfigured: options.mailConfigured,
    queued: counts.queued ?? 0,
    failed: counts.failed ?? 0,
    entries,
  };
}

/** An admin's "retry now" of a queued or failed mail of the account. */
export async function retryNotification(db: Db, accountId: number, id: number, at: string): Promise<void> {
  if (!(await makeDue(db, accountId, id, at))) throw notFound('Queued or failed notification');
}
