import type { SelectQueryBuilder } from 'kysely';
import { bool, type Db, defined, flag } from '../db/crud.js';
import type { Database } from '../db/schema.js';
import { type Caller, isAdmin } from '../identity/caller.js';

/*
 * Rows and records of the spaces, bookings and resources areas: most record fields are their
 * columns as stored; booleans are stored as 0/1 in both dialects. Kept small and local (billing
 * has a mapper of its own) so the two can become one later.
 */

/** The stamps every record of these areas carries. */
export const stamps = ['lockVersion', 'createdAt', 'updatedAt', 'updatedBy'] as const;

/** The named columns of a row as they are. */
export function pick<R extends object, K extends keyof R>(row: R, keys: readonly K[]): Pick<R, K> {
  const out = {} as Pick<R, K>;
  for (const key of keys) out[key] = row[key];
  return out;
}

/** The named 0/1 columns of a row as true/false. */
export function flags<R extends object, K extends keyof R>(
  row: R,
  keys: readonly K[],
): { [P in K]: boolean } {
  const out = {} as { [P in K]: boolean };
  for (const key of keys) out[key] = bool(row[key]);
  return out;
}

/** The columns of an API body: without lockVersion, only what was sent, the named booleans as 0/1. */
export function writeColumns(input: Record<string, unknown>, booleans: readonly string[]) {
  const { lockVersion: _, ...fields } = input;
  for (const key of booleans) fields[key] = flag(fields[key] as boolean | undefined);
  return defined(fields);
}

/** Does a row with this id exist in the account? (A reference a body names, e.g. its member.) */
export async function inAccount(
  db: Db,
  table: 'members' | 'spaces' | 'resource_types',
  id: number,
  account: number,
): Promise<boolean> {
  const row = await (db as unknown as Db)
    .selectFrom(table as 'members')
    .select('id')
    .where('id', '=', id)
    .where('account', '=', account)
    .executeTakeFirst();
  return row !== undefined;
}

/** Rows of a member's own (bookings, logs): admins see their account's, members their own (DESIGN 4). */
export function accountOrOwn<T extends 'bookings' | 'resource_logs'>(db: Db, table: T, caller: Caller) {
  let query = db.selectFrom(table) as unknown as SelectQueryBuilder<Database, 'bookings', object>;
  if (!caller.superuser) query = query.where('account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('member', '=', caller.memberId);
  return query as unknown as SelectQueryBuilder<Database, T, object>;
}
