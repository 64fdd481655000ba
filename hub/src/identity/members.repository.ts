import type { Insertable } from 'kysely';
import {
  type Db,
  countWhere,
  firstWhere,
  likePattern,
  selectFirstWhere,
  selectWhere,
  updateWhere,
} from '../db/crud.js';
import { isPostgres } from '../db/fast-reads.js';
import type { MembersTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { ofCallersAccount } from './records.repository.js';

/** How many owners an account has. */
export function countOwners(db: Db, accountId: number): Promise<number> {
  return countWhere(db, 'members', { account: accountId, privileges: 'owner' });
}

export async function writePrivileges(db: Db, memberId: number, privileges: string): Promise<void> {
  await updateWhere(db, 'members', { id: memberId }, { privileges });
}

export function memberById(db: Db, id: number) {
  return firstWhere(db, 'members', { id });
}

/** Whole rows of these members. */
export function membersByIds(db: Db, ids: number[]) {
  return selectWhere(db, 'members', { id: ids });
}

export function insertMember(db: Db, values: Insertable<MembersTable>) {
  return db.insertInto('members').values(values).returning('id').executeTakeFirstOrThrow();
}

/** Sets or clears a member's superuser flag (lockVersion + 1); false for an unknown member. */
export async function writeSuperuser(db: Db, memberId: number, superuser: boolean): Promise<boolean> {
  const written = await updateWhere(db, 'members', { id: memberId }, (eb) => ({
    superuser: superuser ? 1 : 0,
    lockVersion: eb('lockVersion', '+', 1),
  }));
  return written === 1;
}

/** Members named by id (digits) or e-mail address (any case), of one account when given. */
export function membersNamed(db: Db, member: string, account?: number) {
  let query = db.selectFrom('members').select(['id', 'account', 'emailAddress', 'state']);
  query = /^[1-9][0-9]{0,15}$/.test(member)
    ? query.where('id', '=', Number(member))
    : query.where((eb) => eb(eb.fn('lower', ['emailAddress']), '=', member.toLowerCase()));
  if (account !== undefined) query = query.where('account', '=', account);
  return query.execute();
}

// ---- lists ----

/** Which members the caller sees: superusers all, admins their account, members themselves. */
export function visibleMembers(db: Db, caller: Caller) {
  const query = ofCallersAccount(db, 'members', caller);
  return isAdmin(caller) ? query : query.where('members.id', '=', caller.memberId);
}

/** visibleMembers as SQL text for the fast reads (db/fast-reads.ts): a where clause and its values. */
export function visibleMembersSql(caller: Caller): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (!caller.superuser) {
    parts.push('"account" = ?');
    params.push(caller.accountId);
  }
  if (!isAdmin(caller)) {
    parts.push('"id" = ?');
    params.push(caller.memberId);
  }
  return { where: parts.length > 0 ? `where ${parts.join(' and ')}` : '', params };
}

export interface MemberListQuery {
  q?: string;
  state?: string;
  privileges?: string;
  space?: number;
  emailAddress?: string;
  memberNumber?: string;
  /** Find a member by key card (Fabman's filter); the token is upper-case hex. */
  keyType?: string;
  keyToken?: string;
  orderBy?: string;
  order?: 'asc' | 'desc';
}

export type MemberQuery = ReturnType<typeof visibleMembers>;

/**
 * The members a list query selects (filters and search) from `base`, before ordering and paging.
 * The key filters read `member_keys` (the keys area's table) as a subquery.
 */
export function filterMembers(
  base: MemberQuery,
  db: Db,
  caller: Caller,
  query: MemberListQuery,
): MemberQuery {
  if (query.state) base = base.where('state', '=', query.state);
  if (query.privileges) base = base.where('privileges', '=', query.privileges);
  if (query.space) base = base.where('space', '=', query.space);
  if (query.emailAddress) base = base.where('emailKey', '=', query.emailAddress.toLowerCase());
  if (query.memberNumber) base = base.where('memberNumber', '=', query.memberNumber);
  if (query.keyType || query.keyToken) {
    let keys = db.selectFrom('member_keys').select('member');
    if (query.keyType) keys = keys.where('type', '=', query.keyType);
    if (query.keyToken) keys = keys.where('token', '=', query.keyToken.toUpperCase());
    base = base.where('members.id', 'in', keys);
  }
  if (query.q) {
    const pattern = likePattern(query.q);
    // A card id matches whole (as a reader or the card's print gives it), through its index.
    const card = query.q.trim().toUpperCase();
    const postgres = isPostgres(db);
    let owners = db.selectFrom('member_keys').select('member').where('token', '=', card);
    if (!caller.superuser) owners = owners.where('account', '=', caller.accountId);
    base = base.where((eb) =>
      eb.or([
        // SQLite's LIKE ignores ASCII case by itself (as its lower() does): no function per row.
        ...['firstName', 'lastName', 'emailAddress', 'memberNumber', 'company'].map((c) =>
          postgres
            ? eb(eb.ref(c as 'firstName'), 'ilike', pattern)
            : eb(eb.ref(c as 'firstName'), 'like', pattern),
        ),
        eb('members.id', 'in', owners),
      ]),
    );
  }
  return base;
}

/**
 * A space (its id and account) of the given account, or of the caller's account unless the
 * caller is a superuser (the `spaces` table is the spaces area's).
 */
export function spaceForMember(db: Db, caller: Caller, space: number, accountId?: number) {
  const account = accountId ?? (caller.superuser ? undefined : caller.accountId);
  return selectFirstWhere(db, 'spaces', { id: space, account }, { columns: ['id', 'account'] });
}

// ---- scheduled changes ----

/** Unapplied changes dated `horizon` or earlier, with their member's space's time zone. */
export function unappliedMemberChanges(db: Db, horizon: string) {
  return db
    .selectFrom('member_changes')
    .innerJoin('members', 'members.id', 'member_changes.member')
    .innerJoin('spaces', 'spaces.id', 'members.space')
    .select(['member_changes.id', 'member_changes.date', 'spaces.timezone'])
    .where('member_changes.appliedAt', 'is', null)
    .where('member_changes.date', '<=', horizon)
    .orderBy('member_changes.date')
    .orderBy('member_changes.id')
    .execute();
}

export function unappliedMemberChange(db: Db, id: number) {
  return selectFirstWhere(db, 'member_changes', { id, appliedAt: null });
}

/** Marks a change applied with what it changed; false when it was applied meanwhile. */
export async function markMemberChangeApplied(
  db: Db,
  id: number,
  at: string,
  changes: string,
): Promise<boolean> {
  const applied = { appliedAt: at, changes, updatedAt: at };
  return (await updateWhere(db, 'member_changes', { id, appliedAt: null }, applied)) === 1;
}

// ---- devices ----

export function memberDeviceOf(db: Db, memberId: number) {
  return firstWhere(db, 'member_devices', { member: memberId });
}

export async function updateMemberDevice(
  db: Db,
  id: number,
  values: { name: string | null; details: string | null; userAgent: string | null; lockVersion: number },
  stamp: { at: string; by: number | null },
): Promise<void> {
  await updateWhere(db, 'member_devices', { id }, { ...values, updatedAt: stamp.at, updatedBy: stamp.by });
}

/** The space a member belongs to, if the member exists (members). */
export async function spaceOfMember(db: Db, memberId: number): Promise<number | undefined> {
  const row = await firstWhere(db, 'members', { id: memberId }, ['space']);
  return row?.space;
}

/** Names and numbers of these members (for lists that show whose a line is). */
export function memberNames(db: Db, ids: number[]) {
  return selectWhere(
    db,
    'members',
    { id: ids },
    { columns: ['id', 'firstName', 'lastName', 'memberNumber'] },
  );
}

/** Active members of an account whose first or last name starts with `q` (any case): ids and names. */
export function membersMatching(db: Db, account: number, q: string, limit: number) {
  const prefix = `${q
    .trim()
    .toLowerCase()
    .replace(/[\\%_]/g, '')}%`;
  return db
    .selectFrom('members')
    .select(['id', 'firstName', 'lastName'])
    .where('account', '=', account)
    .where('state', '=', 'active')
    .where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['firstName']), 'like', prefix),
        eb(eb.fn('lower', ['lastName']), 'like', prefix),
      ]),
    )
    .orderBy('firstName')
    .orderBy('lastName')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The owners of an account (of every account when none is given), oldest first: who acts for the CLI's imports. */
export function ownersOf(db: Db, account?: number) {
  const read = { columns: ['id', 'account', 'space', 'state'], orderBy: ['id'] } as const;
  return selectWhere(db, 'members', { privileges: 'owner', account }, read);
}
