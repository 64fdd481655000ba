import type { SelectQueryBuilder } from 'kysely';
import { type Db, defined, flag } from '../db/crud.js';
import type { Database } from '../db/schema.js';
import { type Caller, isAdmin } from '../identity/caller.js';

/*
 * Writes and scopes of the spaces, bookings and resources areas (their records are mapped with
 * db/records.ts).
 */

/** The columns of an API body: without lockVersion, only what was sent, the named booleans as 0/1. */
export function writeColumns(input: Record<string, unknown>, booleans: readonly string[]) {
  const { lockVersion: _, ...fields } = input;
  for (const key of booleans) fields[key] = flag(fields[key] as boolean | undefined);
  return defined(fields);
}

/** Rows of a member's own (bookings, logs): admins see their account's, members their own (DESIGN 4). */
export function accountOrOwn<T extends 'bookings' | 'resource_logs'>(db: Db, table: T, caller: Caller) {
  let query = db.selectFrom(table) as unknown as SelectQueryBuilder<Database, 'bookings', object>;
  if (!caller.superuser) query = query.where('account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('member', '=', caller.memberId);
  return query as unknown as SelectQueryBuilder<Database, T, object>;
}
