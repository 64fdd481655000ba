import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/crud.js';
import type { Database } from '../db/schema.js';
import { notFound } from '../errors.js';
import type { Caller } from './caller.js';

/**
 * Small helpers the identity, keys and webhooks areas share for their records (kept local so
 * they can later join the billing areas' mapper helper).
 */

/** The change stamps every record ends with. */
export function stamps(row: {
  lockVersion: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: number | null;
}) {
  return {
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** The row found, or 404 naming the record. */
export async function foundOr404<T>(row: Promise<T | undefined>, noun: string): Promise<T> {
  const found = await row;
  if (found === undefined) throw notFound(noun);
  return found;
}

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
