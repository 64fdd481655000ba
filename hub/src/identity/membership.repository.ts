import { type Db, allWhere } from '../db/crud.js';

/**
 * Every package a member of the account has held or holds (its days, YYYY-MM-DD in the space's
 * calendar; `untilDate` included, null while open-ended), for the members report. Each member's
 * whole history is read, since "new" and "ended" depend on packages outside the range too.
 */
export function membershipRows(db: Db, account: number) {
  return allWhere(db, 'member_packages', { account }, ['member', 'fromDate', 'untilDate']);
}
