import type { Db } from '../db/crud.js';

/**
 * The resource logs the usage and refusal reports count: plain reads of one account's logs that
 * started in a range of instants (ISO, UTC: stored timestamps compare as text on every dialect).
 * The reports place them into the space's days in code (spaces/report-periods.ts), since SQLite
 * knows no time zones. Each read is one page after a log id (`pages` there), so a year of logs
 * never holds SQLite's one connection, and with it every switch-on, for long.
 */

/** Sessions (allowed logs) started in [startsAt, endsAt), after a log id. */
export function sessionRows(
  db: Db,
  account: number,
  startsAt: string,
  endsAt: string,
  afterId: number,
  limit: number,
) {
  return db
    .selectFrom('resource_logs')
    .select(['id', 'resource', 'createdAt', 'stoppedAt'])
    .where('account', '=', account)
    .where('id', '>', afterId)
    .where('type', '=', 'allowed')
    .where('createdAt', '>=', startsAt)
    .where('createdAt', '<', endsAt)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Refusals (denied logs) in [startsAt, endsAt), after a log id. */
export function refusalRows(
  db: Db,
  account: number,
  startsAt: string,
  endsAt: string,
  afterId: number,
  limit: number,
) {
  return db
    .selectFrom('resource_logs')
    .select(['id', 'reason', 'createdAt'])
    .where('account', '=', account)
    .where('id', '>', afterId)
    .where('type', '=', 'denied')
    .where('createdAt', '>=', startsAt)
    .where('createdAt', '<', endsAt)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The account's resources by id and name, in name order. */
export function resourceNames(db: Db, account: number) {
  return db
    .selectFrom('resources')
    .select(['id', 'name'])
    .where('account', '=', account)
    .orderBy('name')
    .orderBy('id')
    .execute();
}
