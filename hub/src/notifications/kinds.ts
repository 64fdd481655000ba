import {
  adminNotificationKinds,
  memberNotificationKinds,
  type NotificationKind,
  notificationKinds,
} from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import { parseJson } from '../db/crud.js';
import { storedKinds } from './notifications.repository.js';

export { adminNotificationKinds, memberNotificationKinds, notificationKinds, type NotificationKind };

/**
 * Every kind is on until the member turns it off, except the booking reminder: the booking mail
 * brings the booking to the member's calendar (.ics), which reminds them already; a mail the day
 * before is for those who ask for it (docs/NOTIFICATIONS.md).
 */
export const defaultOff: ReadonlySet<NotificationKind> = new Set(['bookingReminder']);

export const isAdminKind = (kind: string): boolean =>
  (adminNotificationKinds as readonly string[]).includes(kind);

/** The member's choice for every kind (defaults for kinds they never chose). */
export async function kindsOf(db: Db, memberId: number): Promise<Record<NotificationKind, boolean>> {
  const stored =
    parseJson<Partial<Record<NotificationKind, boolean>>>((await storedKinds(db, memberId)) ?? null) ?? {};
  return Object.fromEntries(
    notificationKinds.map((k) => [k, typeof stored[k] === 'boolean' ? stored[k] : !defaultOff.has(k)]),
  ) as Record<NotificationKind, boolean>;
}

/** Whether the member receives mails of this kind. */
export async function wants(db: Db, memberId: number, kind: NotificationKind): Promise<boolean> {
  return (await kindsOf(db, memberId))[kind];
}
