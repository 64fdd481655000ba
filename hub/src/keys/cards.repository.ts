import type { Db } from '../db/crud.js';

/*
 * The reads of the cards a bridge knows offline, and of the cards refused as unknown. The member
 * keys are this area's table; the packages' permissions (billing) and the trainings (spaces) are
 * read here in the one join these lists need.
 */

/** Active keys of the account's active members, in key order. */
export function activeKeysOf(db: Db, account: number) {
  return db
    .selectFrom('member_keys as k')
    .innerJoin('members as m', 'm.id', 'k.member')
    .select(['k.type', 'k.token', 'm.id as member', 'm.privileges', 'm.superuser'])
    .where('k.account', '=', account)
    .where('k.state', '=', 'active')
    .where('m.state', '=', 'active')
    .orderBy('k.id')
    .execute();
}

/** The permissions of the account's member packages active on the (space-local) date. */
export function packagePermissionsOn(db: Db, account: number, date: string) {
  return db
    .selectFrom('member_packages as mp')
    .innerJoin('package_permissions as pp', 'pp.package', 'mp.package')
    .select(['mp.member', 'pp.type', 'pp.resource', 'pp.resourceType'])
    .where('mp.account', '=', account)
    .where('mp.fromDate', '<=', date)
    .where((eb) => eb.or([eb('mp.untilDate', 'is', null), eb('mp.untilDate', '>=', date)]))
    .execute();
}

/** Which member of the account is trained for which resource on the date (active courses only). */
export function trainingsOn(db: Db, account: number, date: string) {
  return db
    .selectFrom('member_trainings as t')
    .innerJoin('training_courses as c', 'c.id', 't.trainingCourse')
    .innerJoin('training_course_resources as r', 'r.course', 'c.id')
    .select(['t.member', 'r.resource'])
    .where('t.account', '=', account)
    .where('c.state', '=', 'active')
    .where((eb) => eb.or([eb('t.fromDate', 'is', null), eb('t.fromDate', '<=', date)]))
    .where((eb) => eb.or([eb('t.untilDate', 'is', null), eb('t.untilDate', '>=', date)]))
    .execute();
}

/** The account's keys among these tokens. */
export function keysWithTokens(db: Db, account: number, tokens: readonly string[]) {
  return db
    .selectFrom('member_keys')
    .select(['type', 'token'])
    .where('account', '=', account)
    .where('token', 'in', [...tokens])
    .execute();
}
