import type { Logger } from '@makerspace/shared';
import type { Clock } from '../clock.js';
import type { Db } from '../db/crud.js';
import { addDays, localDate } from '../kernel/zoned-time.js';
import { type PeriodicCheck, periodicCheck } from '../periodic.js';
import { notify, notifyAdmins } from './notify.js';
import { signUpsOf } from '../sign-up/sign-ups.repository.js';
import {
  bookingsStarting,
  bridgesOfflineSince,
  failingWebhooks,
  endingBetween,
  type Ending,
} from './notifications.repository.js';
import type { NotificationTiming } from './worker.js';

const day = 86_400_000;
const dateOf = (t: number) => new Date(t).toISOString().slice(0, 10);

/** How far ahead each periodic notice looks. */
export const reminderAheadMs = day;
export const packageEndingDays = 14;
export const trainingExpiringDays = 30;

/**
 * The notices nothing happens for: a booking starts within a day, a package ends within 14 days,
 * a training expires within 30 days, a bridge is offline for longer than the alert threshold, a
 * webhook is failing. Each is queued once ever (its dedupe key: the booking and its start, the
 * package and its end, the bridge and when it was last seen, the webhook and since when it
 * fails), however often this runs and on whichever hub. Answers how many were queued.
 */
export async function queuePeriodicNotices(
  db: Db,
  clock: Clock,
  timing: NotificationTiming,
): Promise<number> {
  const now = clock.now().getTime();
  const at = new Date(now).toISOString();
  let queued = 0;
  const count = (ok: boolean | number) => {
    queued += Number(ok);
  };
  await db.transaction().execute(async (trx) => {
    for (const b of await bookingsStarting(trx, at, new Date(now + reminderAheadMs).toISOString())) {
      // A booking made within the day before it starts had its booking mail: no reminder.
      if (Date.parse(b.createdAt) > Date.parse(b.fromDateTime) - reminderAheadMs) continue;
      count(
        await notify(trx, {
          account: b.account,
          member: b.member,
          kind: 'bookingReminder',
          params: {
            bookingId: b.id,
            resourceName: b.resourceName,
            from: b.fromDateTime,
            until: b.untilDateTime,
          },
          dedupeKey: `bookingReminder:${b.id}:${b.fromDateTime}`,
          at,
        }),
      );
    }
    // Days count in each member's space (read a day more on each side, then keep those due there).
    const dueWithin = (untilDate: string | null, zone: string | null, days: number) => {
      const today = localDate(new Date(now), zone || 'UTC');
      return untilDate !== null && untilDate >= today && untilDate <= addDays(today, days);
    };
    // A package or training that ends within `days`: its member is told once per last day.
    const remindEnding = async (
      kind: 'packageEnding' | 'trainingExpiring',
      table: Parameters<typeof endingBetween>[1],
      days: number,
      params: (row: Ending) => Record<string, unknown>,
    ) => {
      const ending = await endingBetween(trx, table, dateOf(now - day), dateOf(now + (days + 1) * day));
      for (const row of ending.filter((r) => dueWithin(r.untilDate, r.timezone, days))) {
        count(
          await notify(trx, {
            account: row.account,
            member: row.member,
            kind,
            params: params(row),
            dedupeKey: `${kind}:${row.id}:${row.untilDate}`,
            at,
          }),
        );
      }
    };
    await remindEnding('packageEnding', 'member_packages', packageEndingDays, (p) => ({
      memberPackageId: p.id,
      packageName: p.name,
      untilDate: p.untilDate,
    }));
    await remindEnding('trainingExpiring', 'member_trainings', trainingExpiringDays, (t) => ({
      memberTrainingId: t.id,
      courseTitle: t.name,
      untilDate: t.untilDate,
    }));
    for (const b of await bridgesOfflineSince(trx, new Date(now - timing.bridgeOfflineMs).toISOString())) {
      count(
        await notifyAdmins(trx, {
          account: b.account,
          kind: 'bridgeOffline',
          params: { resource: b.resource, resourceName: b.resourceName, lastSeenAt: b.lastSeenAt },
          dedupeKey: `bridgeOffline:${b.resource}:${b.lastSeenAt}`,
          at,
        }),
      );
    }
    // A sign-up whose e-mail address is confirmed waits for an admin's approval.
    for (const s of await signUpsOf(trx, null, 'pending')) {
      if (!s.emailConfirmedAt) continue;
      count(
        await notifyAdmins(trx, {
          account: s.account,
          kind: 'signUpWaiting',
          params: {
            signUpId: s.id,
            memberName: `${s.firstName} ${s.lastName ?? ''}`.trim(),
            emailAddress: s.emailAddress,
          },
          dedupeKey: `signUpWaiting:${s.id}`,
          at,
        }),
      );
    }
    for (const w of await failingWebhooks(trx)) {
      count(
        await notifyAdmins(trx, {
          account: w.account,
          kind: 'webhookFailing',
          params: {
            webhook: w.id,
            label: w.label ?? `#${w.id}`,
            failingSince: w.failingSince,
            failures: w.consecutiveFailures,
          },
          dedupeKey: `webhookFailing:${w.id}:${w.failingSince ?? ''}`,
          at,
        }),
      );
    }
  });
  return queued;
}

/** The periodic notices as a job (hub/src/periodic.ts); `queued` wakes the worker after a commit. */
export function periodicNotices(
  deps: { db: Db; clock: Clock; logger: Logger; timing: NotificationTiming },
  queued: () => void,
): PeriodicCheck {
  return periodicCheck(
    async () => {
      if ((await queuePeriodicNotices(deps.db, deps.clock, deps.timing)) > 0) queued();
    },
    deps.timing.checkIntervalMs,
    deps.logger,
    'queueing periodic notifications failed',
  );
}
