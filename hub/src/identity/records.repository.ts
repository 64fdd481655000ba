import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/crud.js';
import type { Database } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';

/** The rows of the caller's account (every account's for a superuser). */
export function ofCallersAccount<T extends 'members' | 'api_keys' | 'webhooks'>(
  db: Db,
  table: T,
  caller: Caller,
): SelectQueryBuilder<Database, T, object> {
  const query = db.selectFrom(table as 'members');
  const scoped = caller.superuser
    ? query
    : query.where(`${table as 'members'}.account`, '=', caller.accountId);
  return scoped as unknown as SelectQueryBuilder<Database, T, object>;
}
