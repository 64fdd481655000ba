import type { Insertable } from 'kysely';
import type { Db } from '../db/crud.js';
import type { AccountsTable, SpacesTable } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';

/** Accounts the caller sees: their own, or every account for superusers. */
export function visibleAccounts(db: Db, caller: Caller) {
  const query = db.selectFrom('accounts');
  return caller.superuser ? query : query.where('id', '=', caller.accountId);
}

/** The names of these accounts. */
export function accountNames(db: Db, ids: number[]) {
  return db.selectFrom('accounts').select(['id', 'name']).where('id', 'in', ids).execute();
}

export function insertAccount(db: Db, values: Insertable<AccountsTable>) {
  return db.insertInto('accounts').values(values).returning('id').executeTakeFirstOrThrow();
}

/**
 * A new account's first space, as the account's set-up writes it (the `spaces` table is the
 * spaces area's; its createSpace also makes billing settings, which set-up leaves for later).
 */
export function insertFirstSpace(db: Db, values: Insertable<SpacesTable>) {
  return db.insertInto('spaces').values(values).returning('id').executeTakeFirstOrThrow();
}

/** Every account's id (accounts). */
export async function accountIds(db: Db): Promise<number[]> {
  return (await db.selectFrom('accounts').select('id').execute()).map((a) => a.id);
}
