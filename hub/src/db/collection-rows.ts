import { type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import { notFound, staleLockVersion } from '../errors.js';
import type { Database } from './schema.js';

type Table = keyof Database & string;
type Db = Kysely<Database>;

/**
 * The SQL of the collection machinery (http/collection.ts), the same for every table: one row
 * of a scoped select, an insert with its stamps, an update under optimistic locking, a delete.
 */

/** Every row of a table, as a select to scope further (`where`) before reading. */
export function allRows<T extends Table>(db: Db, table: T): SelectQueryBuilder<Database, T, object> {
  return db.selectFrom(table) as unknown as SelectQueryBuilder<Database, T, object>;
}

/** The rows of a table whose `column` has this value, as a select to scope further. */
export function rowsWhere<T extends Table>(
  db: Db,
  table: T,
  column: string,
  value: unknown,
): SelectQueryBuilder<Database, T, object> {
  return (allRows(db, table) as SelectQueryBuilder<any, any, object>).where(
    `${table}.${column}`,
    '=',
    value as never,
  ) as SelectQueryBuilder<Database, T, object>;
}

export function findRow<T extends Table>(
  scope: SelectQueryBuilder<Database, T, object>,
  table: T,
  id: number,
) {
  return (scope as SelectQueryBuilder<any, any, object>)
    .selectAll()
    .where(`${table}.id` as string, '=', id as never)
    .executeTakeFirst();
}

/** Inserts a row stamped with the time and the member who wrote it; answers the stored row. */
export function insertRow<T extends Table>(
  db: Db,
  table: T,
  values: Record<string, unknown>,
  stamp: { at: string; by: number | null },
): Promise<Selectable<Database[T]>> {
  return (db as unknown as Kysely<any>)
    .insertInto(table)
    .values({ ...values, createdAt: stamp.at, updatedAt: stamp.at, updatedBy: stamp.by })
    .returningAll()
    .executeTakeFirstOrThrow() as Promise<Selectable<Database[T]>>;
}

/**
 * Updates one row under optimistic locking: the row changes only when its lockVersion is the
 * one the client read; then lockVersion goes up by one. A missing (or invisible) row is 404, a
 * stale version 409.
 */
export async function updateRow(
  db: Db,
  table: Table,
  id: number,
  lockVersion: number,
  values: Record<string, unknown>,
  stamp: { at: string; by: number | null },
): Promise<void> {
  const anyDb = db as unknown as Kysely<any>;
  const result = await anyDb
    .updateTable(table)
    .set({ ...values, lockVersion: sql`"lockVersion" + 1`, updatedAt: stamp.at, updatedBy: stamp.by })
    .where('id', '=', id)
    .where('lockVersion', '=', lockVersion)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 1) return;
  const exists = await anyDb.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst();
  throw exists ? staleLockVersion() : notFound();
}

export async function deleteRow(db: Db, table: Table, id: number): Promise<void> {
  await (db as unknown as Kysely<any>).deleteFrom(table).where('id', '=', id).execute();
}
