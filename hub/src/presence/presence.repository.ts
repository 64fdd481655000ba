import type { Selectable } from 'kysely';
import { type Db, firstWhere, insertReturning, qualified } from '../db/crud.js';
import type { FastReads } from '../db/fast-reads.js';
import type { CheckInsTable } from '../db/schema.js';

export type CheckInRow = Selectable<CheckInsTable>;

/** The member's open check-in in the space, if any. */
export function openCheckIn(db: Db, space: number, member: number): Promise<CheckInRow | undefined> {
  return db
    .selectFrom('check_ins')
    .selectAll()
    .where('space', '=', space)
    .where('member', '=', member)
    .where('state', '=', 'in')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export function checkInById(db: Db, id: number): Promise<CheckInRow | undefined> {
  return firstWhere(db, 'check_ins', { id });
}

export function insertCheckIn(
  db: Db,
  row: {
    account: number;
    space: number;
    member: number;
    at: string;
    method: string;
    resource: number | null;
    by: number | null;
  },
): Promise<CheckInRow> {
  return insertReturning(db, 'check_ins', {
    account: row.account,
    space: row.space,
    member: row.member,
    state: 'in',
    checkedInAt: row.at,
    checkInMethod: row.method,
    checkInResource: row.resource,
    createdAt: row.at,
    updatedAt: row.at,
    updatedBy: row.by,
  });
}

/** Ends a stay if it is still open; undefined when it was ended already (a second tap or the job). */
export function closeCheckIn(
  db: Db,
  id: number,
  out: { at: string; method: string; resource: number | null; by: number | null; stamp: string },
): Promise<CheckInRow | undefined> {
  return db
    .updateTable('check_ins')
    .set((eb) => ({
      state: 'out',
      checkedOutAt: out.at,
      checkOutMethod: out.method,
      checkOutResource: out.resource,
      updatedAt: out.stamp,
      updatedBy: out.by,
      lockVersion: eb('lockVersion', '+', 1),
    }))
    .where('id', '=', id)
    .where('state', '=', 'in')
    .returningAll()
    .executeTakeFirst();
}

export interface CheckInFilter {
  account: number;
  member?: number;
  space?: number;
  state?: 'in' | 'out';
  from?: string;
  until?: string;
}

function filtered(db: Db, f: CheckInFilter) {
  let q = db.selectFrom('check_ins').where('account', '=', f.account);
  if (f.member !== undefined) q = q.where('member', '=', f.member);
  if (f.space !== undefined) q = q.where('space', '=', f.space);
  if (f.state !== undefined) q = q.where('state', '=', f.state);
  if (f.from !== undefined) q = q.where('checkedInAt', '>=', f.from);
  if (f.until !== undefined) q = q.where('checkedInAt', '<', f.until);
  return q;
}

/** A page of stays, newest first, and how many match. */
export async function checkInPage(db: Db, f: CheckInFilter, limit: number, offset: number) {
  const rows = await filtered(db, f)
    .selectAll()
    .orderBy('checkedInAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const total = await filtered(db, f)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** Every open stay, with its space's time zone (closing-time check-outs). */
export function openCheckIns(db: Db) {
  return db
    .selectFrom('check_ins')
    .innerJoin('spaces', 'spaces.id', 'check_ins.space')
    .selectAll('check_ins')
    .select('spaces.timezone')
    .where('check_ins.state', '=', 'in')
    .execute();
}

/** Open stays of a space with the members' names and whether each is shown, longest in first. */
export function presentMembers(db: Db, space: number) {
  return db
    .selectFrom('check_ins')
    .innerJoin('members', 'members.id', 'check_ins.member')
    .leftJoin('presence_settings', 'presence_settings.member', 'check_ins.member')
    .select([
      ...qualified('check_ins', ['id', 'member', 'checkedInAt']),
      ...qualified('members', ['firstName', 'lastName']),
      'presence_settings.showPresence',
    ])
    .where('check_ins.space', '=', space)
    .where('check_ins.state', '=', 'in')
    .orderBy('check_ins.checkedInAt')
    .execute();
}

/** How many are checked in to the space, and whether this member is (a fast read: card taps). */
export async function occupancy(
  reads: FastReads,
  space: number,
  member: number,
): Promise<{ count: number; memberIn: boolean }> {
  const row = await reads.first<{ n: number | string; mine: number | string | null }>(
    'select count(*) as "n", sum(case when "member" = ? then 1 else 0 end) as "mine" from "check_ins" where "space" = ? and "state" = \'in\'',
    [member, space],
  );
  return { count: Number(row?.n ?? 0), memberIn: Number(row?.mine ?? 0) > 0 };
}

export async function occupancyLimitOf(reads: FastReads, space: number): Promise<number | null> {
  const row = await reads.first<{ occupancyLimit: number | null }>(
    'select "occupancyLimit" from "spaces" where "id" = ?',
    [space],
  );
  return row?.occupancyLimit ?? null;
}

export function spaceOf(db: Db, space: number) {
  return firstWhere(db, 'spaces', { id: space }, ['id', 'account', 'timezone', 'occupancyLimit']);
}

export async function showPresenceOf(db: Db, member: number): Promise<boolean> {
  return (await firstWhere(db, 'presence_settings', { member }, ['showPresence']))?.showPresence === 1;
}

export async function putShowPresence(db: Db, account: number, member: number, show: boolean, at: string) {
  const value = show ? 1 : 0;
  await db
    .insertInto('presence_settings')
    .values({ member, account, showPresence: value, updatedAt: at })
    .onConflict((oc) => oc.column('member').doUpdateSet({ showPresence: value, updatedAt: at }))
    .execute();
}

/** Doors held unlocked in some mode (the window watcher). */
export function heldDoors(db: Db) {
  return db
    .selectFrom('resources')
    .select(['id', 'account', 'space', 'controlType', 'unlockMode'])
    .where('unlockMode', '!=', 'normal')
    .where('controlType', '=', 'door')
    .execute();
}

export function doorRow(db: Db, id: number) {
  return firstWhere(db, 'resources', { id }, [
    'id',
    'account',
    'space',
    'controlType',
    'unlockMode',
    'state',
  ]);
}

/** Members' allowed entries at the door since `since` (a firstIn door opens at the first). */
export async function entriesSince(db: Db, resource: number, since: string): Promise<number> {
  const row = await db
    .selectFrom('resource_logs')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('resource', '=', resource)
    .where('type', '=', 'allowed')
    .where('member', 'is not', null)
    .where('createdAt', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function doorLock(db: Db, resource: number) {
  return firstWhere(db, 'door_locks', { resource });
}

export async function putDoorLock(
  db: Db,
  lock: {
    resource: number;
    account: number;
    lockedUntil: string;
    createdAt: string;
    createdBy: number | null;
  },
) {
  await db
    .insertInto('door_locks')
    .values(lock)
    .onConflict((oc) =>
      oc.column('resource').doUpdateSet({
        lockedUntil: lock.lockedUntil,
        createdAt: lock.createdAt,
        createdBy: lock.createdBy,
      }),
    )
    .execute();
}

/** The member's state (active, pending, inactive...), undefined when gone. */
export async function memberStateOf(db: Db, member: number): Promise<string | undefined> {
  const row = await db.selectFrom('members').select('state').where('id', '=', member).executeTakeFirst();
  return row?.state;
}
