import { z } from 'zod';
import { Id } from './common.js';

/** Mail notifications (docs/NOTIFICATIONS.md): the kinds a member receives. */
export const memberNotificationKinds = [
  'invoiceIssued',
  'paymentReceived',
  'paymentFailed',
  'balanceLow',
  'bookingMade',
  'bookingChanged',
  'bookingCancelled',
  'bookingReminder',
  'packageEnding',
  'trainingExpiring',
  'cardLost',
  'problemReported',
] as const;

/** The kinds only admins and owners receive (about the space, not about themselves). */
export const adminNotificationKinds = [
  'bridgeOffline',
  'webhookFailing',
  'memberPaymentFailed',
  'signUpWaiting',
] as const;

export const notificationKinds = [...memberNotificationKinds, ...adminNotificationKinds] as const;
export const NotificationKind = z.enum(notificationKinds);
export type NotificationKind = z.infer<typeof NotificationKind>;

const kindFlags = <K extends readonly string[]>(kinds: K) =>
  Object.fromEntries(kinds.map((k) => [k, z.boolean()])) as { [P in K[number]]: z.ZodBoolean };

/** GET /members/{id}/notification-settings: every kind on or off; the admin kinds for admins only. */
export const NotificationSettingsRecord = z.object({
  member: Id,
  ...kindFlags(memberNotificationKinds),
  ...z.object(kindFlags(adminNotificationKinds)).partial().shape,
});
export type NotificationSettingsRecord = z.infer<typeof NotificationSettingsRecord>;

/** PUT /members/{id}/notification-settings: the kinds to change (the others keep their choice). */
export const NotificationSettingsUpdate = z.strictObject(
  z.object({ ...kindFlags(memberNotificationKinds), ...kindFlags(adminNotificationKinds) }).partial().shape,
);

export const NotificationState = z.enum(['queued', 'sent', 'failed']);

/** One mail of the outbox as admins see it. */
export const OutboxEntry = z.object({
  id: Id,
  member: Id,
  memberName: z.string().nullable(),
  kind: z.string(),
  subject: z.string().nullable(),
  state: NotificationState,
  attempts: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  lastError: z.string().nullable(),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
});
export type OutboxEntry = z.infer<typeof OutboxEntry>;

/** GET /notification-outbox: whether mail is configured, the counts, and the newest entries. */
export const NotificationOutbox = z.object({
  mailConfigured: z.boolean().describe('False when HUB_SMTP_URL is not set: nothing is sent'),
  queued: z.number().int().describe('Mails waiting to be sent (or retried)'),
  failed: z.number().int().describe('Mails given up after their last retry'),
  entries: z.array(OutboxEntry),
});
export type NotificationOutbox = z.infer<typeof NotificationOutbox>;
