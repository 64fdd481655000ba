import type { Logger } from '@makerspace/shared';
import type { Clock } from '../clock.js';
import { OutboxPump } from '../kernel/outbox-pump.js';
import type { Db } from '../db/crud.js';
import { parseJson } from '../db/crud.js';
import type { DialectName } from '../db/database.js';
import type { Mailer } from '../sign-in/mailer.js';
import { bookingCalendar, invoiceAttachment, type MailAttachment } from './attachments.js';
import type { NotificationKind } from './kinds.js';
import {
  leaseDue,
  markAttemptFailed,
  markSent,
  notificationById,
  pruneOutbox,
  recipientOf,
  releaseLease,
} from './notifications.repository.js';
import { languageOf, renderMail } from './templates.js';

/** How the outbox is read and retried. Production defaults below; tests shorten them. */
export interface NotificationTiming {
  /** The outbox is read this often (and at once after a commit that queued mail). */
  pollIntervalMs: number;
  /** First retry delay; it doubles per failed attempt up to retryMaxMs, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Attempts after which a mail is given up (`failed`; an admin may retry it). */
  maxAttempts: number;
  /** How long a hub may take to send one mail before another hub may take it over. */
  leaseMs: number;
  /** A mail not sent within this time after it was queued (no mail server meanwhile) is given up unsent. */
  maxAgeMs: number;
  /** Sent and failed mails are kept this long (reminders' keys a year). */
  retentionMs: number;
  /** The periodic notifications (reminders, ending packages, offline bridges) look this often. */
  checkIntervalMs: number;
  /** A bridge offline this long is told to the admins (the dashboard's default alert). */
  bridgeOfflineMs: number;
}

export const defaultNotificationTiming: NotificationTiming = {
  pollIntervalMs: 5_000,
  retryBaseMs: 60_000,
  retryMaxMs: 6 * 3600_000,
  maxAttempts: 10,
  leaseMs: 2 * 60_000,
  maxAgeMs: 7 * 24 * 3600_000,
  retentionMs: 60 * 24 * 3600_000,
  checkIntervalMs: 5 * 60_000,
  bridgeOfflineMs: 5 * 60_000,
};

/** Delay before the next attempt after `attempts` failures: exponential, capped, half of it random. */
export function mailRetryDelay(attempts: number, t: NotificationTiming, random = Math.random): number {
  const full = Math.min(t.retryMaxMs, t.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

export interface NotificationWorkerDeps {
  db: Db;
  dialect: DialectName;
  /** null without HUB_SMTP_URL: nothing is sent, the mails wait. */
  mailer: Mailer | null;
  logger: Logger;
  clock: Clock;
  timing: NotificationTiming;
  /** Base of the links in the mails (HUB_PUBLIC_URL; known only once the hub listens). */
  linkBase: () => string;
}

const iso = (clock: Clock, plusMs = 0) => new Date(clock.now().getTime() + plusMs).toISOString();

/**
 * Sends the mail outbox. Several hubs on one PostgreSQL database each run one: a hub leases the
 * due mails it takes (leaseDue: one statement, FOR UPDATE SKIP LOCKED), so each mail is sent by
 * one hub; a hub that dies while sending leaves a lease that runs out, and another hub sends the
 * mail then (the only case in which a mail can go twice: sent, but not recorded).
 */
export class NotificationWorker {
  private readonly pump = new OutboxPump(
    () => this.pass(),
    (err) => this.deps.logger.error({ err }, 'notifications: reading the outbox failed'),
  );
  private lastPrune = 0;

  constructor(private readonly deps: NotificationWorkerDeps) {}

  get mailConfigured(): boolean {
    return this.deps.mailer !== null;
  }

  async start(): Promise<void> {
    if (!this.deps.mailer) {
      this.deps.logger.info('notifications: HUB_SMTP_URL is not set; mails wait in the outbox');
      return;
    }
    this.pump.start(this.deps.timing.pollIntervalMs);
  }

  async stop(): Promise<void> {
    await this.pump.stop();
  }

  /** Reads the outbox now (coalesced: a wake during a pass runs one more pass). */
  wake(): void {
    this.pump.wake();
  }

  private get stopped(): boolean {
    return this.pump.stopped;
  }

  private async pass(): Promise<void> {
    const { db, dialect, clock, timing } = this.deps;
    const now = clock.now().getTime();
    if (now - this.lastPrune >= 3600_000) {
      this.lastPrune = now;
      await pruneOutbox(db, iso(clock, -timing.retentionMs), iso(clock, -365 * 24 * 3600_000));
    }
    for (;;) {
      if (this.stopped) return;
      const ids = await leaseDue(db, dialect, iso(clock), iso(clock, timing.leaseMs), 20);
      for (const [i, id] of ids.entries()) {
        if (this.stopped) {
          // Leased but not sent (the hub is closing): the mails wait for the next start.
          for (const rest of ids.slice(i)) await releaseLease(db, rest).catch(() => {});
          return;
        }
        await this.send(id).catch((err) =>
          this.deps.logger.error({ err, notification: id }, 'notifications: sending failed'),
        );
      }
      if (ids.length < 20) return;
    }
  }

  private async send(id: number): Promise<void> {
    const { db, clock, timing, mailer } = this.deps;
    const row = await notificationById(db, id);
    if (row?.state !== 'queued' || !mailer) return;
    const attempts = row.attempts + 1;
    // Old news (a reminder of a booking that is over, queued while no mail server was set): given
    // up unsent. Only a mail never tried and never retried by an admin (its first due time).
    const neverTried = row.attempts === 0 && row.nextAttemptAt === row.createdAt;
    if (neverTried && Date.parse(row.createdAt) < clock.now().getTime() - timing.maxAgeMs) {
      const days = Math.round(timing.maxAgeMs / 86_400_000);
      await markAttemptFailed(
        db,
        id,
        0,
        `not sent within ${days} days of being queued; given up`,
        null,
        null,
      );
      return;
    }
    const member = await recipientOf(db, row.member);
    if (!member?.emailAddress) {
      await markAttemptFailed(db, id, attempts, 'the member has no e-mail address', null, null);
      return;
    }
    const kind = row.kind as NotificationKind;
    const params = parseJson<Record<string, any>>(row.params) ?? {};
    const base = this.deps.linkBase().replace(/\/$/, '');
    const mail = renderMail(kind, params, {
      language: languageOf(member.language, member.spaceLocale),
      name: member.firstName || member.emailAddress,
      spaceName: member.spaceName,
      timezone: member.timezone,
      settingsUrl: `${base}/account`,
    });
    let error: string | null = null;
    try {
      const attachments = await this.attachments(kind, params, member.spaceName, base);
      await mailer.send({
        to: member.emailAddress,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        ...(attachments.length > 0 ? { attachments } : {}),
      });
    } catch (err) {
      error = (err as Error)?.message ?? String(err);
    }
    if (error === null) {
      await markSent(db, id, attempts, mail.subject, iso(clock));
      return;
    }
    const giveUp = attempts >= timing.maxAttempts;
    const delay = mailRetryDelay(attempts, timing);
    await markAttemptFailed(db, id, attempts, error, mail.subject, giveUp ? null : iso(clock, delay));
    this.deps.logger.warn(
      { notification: id, attempts, error, giveUp },
      'notifications: a mail was not accepted',
    );
    if (!giveUp) this.pump.wakeIn(delay + 5);
  }

  private async attachments(
    kind: NotificationKind,
    p: Record<string, any>,
    spaceName: string,
    base: string,
  ): Promise<MailAttachment[]> {
    if (kind === 'bookingMade' || kind === 'bookingChanged' || kind === 'bookingCancelled') {
      const host = new URL(base).hostname || 'localhost';
      return [
        bookingCalendar(
          kind,
          { bookingId: p.bookingId, resourceName: p.resourceName, from: p.from, until: p.until, spaceName },
          host,
          this.deps.clock.now(),
        ),
      ];
    }
    if (kind === 'invoiceIssued') {
      const pdf = await invoiceAttachment(this.deps.db, p.invoiceId, p.number, this.deps.clock);
      return pdf ? [pdf] : [];
    }
    return [];
  }
}
