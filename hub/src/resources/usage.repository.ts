import type { Db } from '../db/crud.js';
import { inRangePage, type RangePage } from '../db/range-page.js';

/**
 * The resource logs the usage and refusal reports count: plain reads of one account's logs that
 * started in a range of instants. The reports place them into the space's days in code
 * (spaces/report-periods.ts), since SQLite knows no time zones. Each read is one page after a log
 * id (`pages` there), so a year of logs never holds SQLite's one connection, and with it every
 * switch-on, for long.
 */

/** Sessions (allowed logs) started in the page's range. */
export function sessionRows(db: Db, page: RangePage) {
  const logs = db.selectFrom('resource_logs').select(['id', 'resource', 'createdAt', 'stoppedAt']);
  return inRangePage(logs.where('type', '=', 'allowed'), 'resource_logs', 'createdAt', page).execute();
}

/** Refusals (denied logs) in the page's range. */
export function refusalRows(db: Db, page: RangePage) {
  const logs = db.selectFrom('resource_logs').select(['id', 'reason', 'createdAt']);
  return inRangePage(logs.where('type', '=', 'denied'), 'resource_logs', 'createdAt', page).execute();
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
