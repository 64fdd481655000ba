import type { Db } from '../db/crud.js';

/**
 * The billing area's rows a member list embeds (`member_packages`, `packages`), read once per
 * page for http/member-embeds.ts.
 */

/** The packages these members hold or held, by start date. */
export function memberPackagesOfMembers(db: Db, memberIds: number[]) {
  return db
    .selectFrom('member_packages')
    .selectAll()
    .where('member', 'in', memberIds)
    .orderBy('fromDate')
    .orderBy('id')
    .execute();
}

export function packagesByIds(db: Db, ids: number[]) {
  return db.selectFrom('packages').selectAll().where('id', 'in', ids).execute();
}
