import type { Db } from '../db/crud.js';
import type { FastReads } from '../db/fast-reads.js';
import { ReadMemo } from '../db/read-memo.js';
import type { Caller } from '../kernel/caller.js';
import type { MemberRow } from './members.js';
import { orderedMembers } from './members.js';
import {
  filterMembers,
  type MemberListQuery,
  visibleMembers,
  visibleMembersSql,
} from './members.repository.js';

/**
 * The reads of the members' hot paths (list and get, benchmarked): prepared statements on the
 * fast reads where the shape allows, ids and versions only, so record texts can come from the
 * record cache (routes/members.hot.ts).
 */

/** How many members the caller sees (the unfiltered list's total). */
export async function countVisibleMembers(reads: FastReads, caller: Caller): Promise<number> {
  const { where, params } = visibleMembersSql(caller);
  const row = await reads.first<{ n: number | string }>(
    `select count(*) as "n" from "members" ${where}`,
    params,
  );
  return Number(row?.n ?? 0);
}

/** Ids and versions of a page of the members the caller sees, by id. */
export async function visibleMemberKeys(
  reads: FastReads,
  caller: Caller,
  page: { limit: number; offset: number; order: 'asc' | 'desc' },
): Promise<{ id: number; lockVersion: number }[]> {
  const { where, params } = visibleMembersSql(caller);
  const pairs = await reads.tuples<[number, number]>(
    `select "id", "lockVersion" from "members" ${where} order by "id" ${page.order === 'desc' ? 'desc' : 'asc'} limit ? offset ?`,
    [...params, page.limit, page.offset],
  );
  return pairs.map(([id, lockVersion]) => ({ id, lockVersion }));
}

/** How many members a filtered list selects. */
export async function countFilteredMembers(db: Db, caller: Caller, query: MemberListQuery): Promise<number> {
  const [{ n }] = await filterMembers(visibleMembers(db, caller), db, caller, query)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .execute();
  return Number(n);
}

/** Ids and versions of a page of a filtered list, in its order. */
export function filteredMemberKeys(
  db: Db,
  caller: Caller,
  query: MemberListQuery & { limit: number; offset: number },
): Promise<{ id: number; lockVersion: number }[]> {
  const base = filterMembers(visibleMembers(db, caller), db, caller, query).select(['id', 'lockVersion']);
  return orderedMembers(base, query).limit(query.limit).offset(query.offset).execute();
}

/** Whole rows of these members (record texts missing from the cache). */
export { membersByIds } from './members.repository.js';

type MemberKey = { id: number; account: number; lockVersion: number };

/** Members' keys per database (its reads), kept until the next commit (db/read-memo.ts). */
const memberKeys = new WeakMap<FastReads, ReadMemo<number, MemberKey | undefined>>();

async function readMemberKey(reads: FastReads, id: number): Promise<MemberKey | undefined> {
  const [key] = await reads.tuples<[number, number, number]>(
    'select "id", "account", "lockVersion" from "members" where "id" = ?',
    [id],
  );
  return key ? { id: key[0], account: key[1], lockVersion: key[2] } : undefined;
}

/**
 * A member's id, account and version (a prepared read), or undefined. The answer is kept until
 * anything is committed: the record reads of a member ask no query while nothing changes.
 */
export function memberVersion(reads: FastReads, id: number): Promise<MemberKey | undefined> {
  return memberKeyMemo(reads).get(id);
}

/** What memberVersion would answer, when it can without reading (`notKept` otherwise). */
export function keptMemberVersion(reads: FastReads, id: number): MemberKey | undefined | typeof notKept {
  return memberKeyMemo(reads).peek(id, notKept);
}

export const notKept = Symbol('not kept');

function memberKeyMemo(reads: FastReads): ReadMemo<number, MemberKey | undefined> {
  let memo = memberKeys.get(reads);
  if (!memo) {
    memo = new ReadMemo(reads, readMemberKey);
    memberKeys.set(reads, memo);
  }
  return memo;
}

/** A member's whole row (a prepared read), or undefined. */
export function memberRow(reads: FastReads, id: number): Promise<MemberRow | undefined> {
  return reads.first<MemberRow>('select * from "members" where "id" = ?', [id]);
}
