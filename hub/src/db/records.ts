import type { WebhookEventType } from '@makerspace/shared';
import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import { notFound, unprocessable } from '../errors.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { findRow } from './collection-rows.js';
import { bool, type Db } from './crud.js';
import { emitEvent } from './outbox.js';
import type { Database } from './schema.js';

/**
 * Row-to-record mapping shared by the areas: most records show some columns as they are stored,
 * a few converted (money, booleans, JSON), and the stamps every table carries. A mapper names the
 * columns shown as stored (`columnsOf`), spells out only what it converts, and ends with
 * `stampsOf`; `recordOf` is both for a record that converts nothing.
 */

/** The stamps of every table (db/schema.ts `Stamps`), as rows hold them once read. */
export interface StampedRow {
  lockVersion: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: number | null;
}

/** The stamp columns, for a list of columns shown as stored that ends with them. */
export const stampColumns = ['lockVersion', 'createdAt', 'updatedAt', 'updatedBy'] as const;

/** The stamps of a row, for the record: lockVersion, createdAt, updatedAt, updatedBy. */
export function stampsOf(row: StampedRow): StampedRow {
  return columnsOf(row, stampColumns);
}

/** The named columns of a row as stored. */
export function columnsOf<R, K extends keyof R>(row: R, columns: readonly K[]): Pick<R, K> {
  const record = {} as Pick<R, K>;
  for (const column of columns) record[column] = row[column];
  return record;
}

/** The named columns of a row as stored, followed by its stamps (a record with nothing to convert). */
export function recordOf<R extends StampedRow, K extends keyof R>(
  row: R,
  columns: readonly K[],
): Pick<R, K> & StampedRow {
  return { ...columnsOf(row, columns), ...stampsOf(row) };
}

/** The named 0/1 columns of a row as true/false (booleans are stored as 0/1 in both dialects). */
export function flags<R extends object, K extends keyof R>(
  row: R,
  columns: readonly K[],
): { [P in K]: boolean } {
  return Object.fromEntries(columns.map((column) => [column, bool(row[column])])) as { [P in K]: boolean };
}

/** The row found, or 404 naming the record. */
export async function foundOr404<T>(row: Promise<T | undefined>, noun: string): Promise<T> {
  const found = await row;
  if (found === undefined) throw notFound(noun);
  return found;
}

/** The row with this id among those the caller sees (`scope`, a select from `table`), or 404 naming the record. */
export function visibleRow<T extends keyof Database & string>(
  scope: SelectQueryBuilder<Database, T, object>,
  table: T,
  id: number,
  noun: string,
): Promise<Selectable<Database[T]>> {
  return foundOr404(findRow(scope, table, id), noun) as Promise<Selectable<Database[T]>>;
}

/** Groups rows by a key (e.g. a page's allocations by invoice), reading each group once. */
export function groupBy<R, K>(rows: readonly R[], key: (row: R) => K): Map<K, R[]> {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/**
 * The row of `table` with this id in this account, as a request's field names it (a member, a
 * package, a resource); none is bad input: 422 naming the field (`{[field]: 'unknown'}`).
 */
export async function referencedRow<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  ref: { id: number; account: number; field: string; noun: string },
): Promise<Selectable<Database[T]>> {
  const row = await (db as unknown as Kysely<any>)
    .selectFrom(table)
    .selectAll()
    .where('id', '=', ref.id)
    .where('account', '=', ref.account)
    .executeTakeFirst();
  if (!row) throw unprocessable(`${ref.noun} ${ref.id} does not exist`, { [ref.field]: 'unknown' });
  return row as Selectable<Database[T]>;
}

/** Does a row with this id exist in the account? (A reference a body or a bridge names, e.g. a member.) */
export async function inAccount(
  db: Kysely<Database>,
  table: 'members' | 'spaces' | 'resource_types' | 'resources',
  id: number,
  account: number,
): Promise<boolean> {
  const row = await db
    .selectFrom(table as 'members')
    .select('id')
    .where('id', '=', id)
    .where('account', '=', account)
    .executeTakeFirst();
  return row !== undefined;
}

/** The row of `table` with this id, if there is one (e.g. a record an event's details name). */
export function rowById<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  id: number,
): Promise<Selectable<Database[T]> | undefined> {
  return (db as unknown as Kysely<any>)
    .selectFrom(table)
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst() as Promise<Selectable<Database[T]> | undefined>;
}

/** The row of `table` with this id, which must be there (a row another one points to): throws otherwise. */
export function requiredRow<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  id: number,
): Promise<Selectable<Database[T]>> {
  return (db as unknown as Kysely<any>)
    .selectFrom(table)
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow() as Promise<Selectable<Database[T]>>;
}

/**
 * The emitter of a record's webhook events (`charge_created`, `memberPackage_deleted`, ...):
 * `details` builds the event's details from the row, only when some webhook wants the event.
 */
export function recordEvents<Row extends { account: number }, Prefix extends string>(
  details: (db: Kysely<Database>, row: Row) => Promise<Record<string, unknown>>,
) {
  return (db: Kysely<Database>, type: Extract<WebhookEventType, `${Prefix}_${string}`>, row: Row) =>
    emitEvent(db, { account: row.account, type, details: () => details(db, row) });
}

/** Rows of a member's own (bookings, logs): admins see their account's, members their own (DESIGN 4). */
export function accountOrOwn<T extends 'bookings' | 'resource_logs'>(db: Db, table: T, caller: Caller) {
  let query = db.selectFrom(table) as unknown as SelectQueryBuilder<Database, 'bookings', object>;
  if (!caller.superuser) query = query.where('account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('member', '=', caller.memberId);
  return query as unknown as SelectQueryBuilder<Database, T, object>;
}
