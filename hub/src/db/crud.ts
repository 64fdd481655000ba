import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

/** Booleans are stored as 0/1 in both dialects; records show them as true/false. */
export const bool = (v: unknown): boolean => v === 1 || v === true || v === '1';
export const flag = (v: boolean | undefined): number | undefined => (v === undefined ? undefined : v ? 1 : 0);

/** JSON columns are text in both dialects. */
export function parseJson<T>(v: string | null): T | null {
  if (v === null || v === undefined) return null;
  try {
    return JSON.parse(v) as T;
  } catch {
    return null;
  }
}
export const jsonText = (v: unknown): string | null | undefined =>
  v === undefined ? undefined : v === null ? null : JSON.stringify(v);

/** Drops undefined values so an update only touches the fields the client sent. */
export function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = v;
  return out as Partial<T>;
}

/** Is this error a unique-constraint violation (SQLite or PostgreSQL)? */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    /UNIQUE constraint failed/.test(e?.message ?? '')
  );
}

/**
 * Runs `fn` again when PostgreSQL aborted it to break a deadlock or a serialisation conflict
 * (codes 40P01, 40001): the other transaction went through, so a retry succeeds.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (i >= attempts || (code !== '40P01' && code !== '40001')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * i));
    }
  }
}

/** Escapes LIKE wildcards in user text and wraps it for a contains-search on lower(column). */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The columns of an API body: without lockVersion, only what was sent, the named booleans as 0/1. */
export function writeColumns(input: Record<string, unknown>, booleans: readonly string[]) {
  const { lockVersion: _, ...fields } = input;
  for (const key of booleans) fields[key] = flag(fields[key] as boolean | undefined);
  return defined(fields);
}

type Row<T extends keyof Database> = Selectable<Database[T]>;

/** Equalities on a table's columns: `{ id: 3, account: 1 }` stands for `id = 3 and account = 1`. */
export type Match<T extends keyof Database> = { [C in keyof Row<T>]?: Exclude<Row<T>[C], null> };

/** The rows of `table` whose columns equal `match`: each a `where column = value`, in the order given. */
function matching(db: Db, table: keyof Database, match: Record<string, unknown>): AnyQuery {
  // Kysely cannot type a query over a table chosen at run time: the exported signatures do.
  let query = db.selectFrom(table) as unknown as AnyQuery;
  for (const [column, value] of Object.entries(match)) query = query.where(column, '=', value);
  return query;
}

/**
 * The first row of `table` whose columns equal `match`, with all its columns or only
 * `columns`; undefined when none does.
 */
export function firstWhere<T extends keyof Database>(
  db: Db,
  table: T,
  match: Match<T>,
): Promise<Row<T> | undefined>;
export function firstWhere<T extends keyof Database, C extends keyof Row<T> & string>(
  db: Db,
  table: T,
  match: Match<T>,
  columns: readonly C[],
): Promise<Pick<Row<T>, C> | undefined>;
export function firstWhere(
  db: Db,
  table: keyof Database,
  match: Record<string, unknown>,
  columns?: readonly string[],
) {
  const query = matching(db, table, match);
  return (columns ? query.select(columns) : query.selectAll()).executeTakeFirst();
}

/** Every row of `table` whose columns equal `match`, with only `columns`, in no particular order. */
export function allWhere<T extends keyof Database, C extends keyof Row<T> & string>(
  db: Db,
  table: T,
  match: Match<T>,
  columns: readonly C[],
): Promise<Pick<Row<T>, C>[]> {
  return matching(db, table, match).select(columns).execute() as Promise<Pick<Row<T>, C>[]>;
}

/** How many rows of `table` have columns equal to `match`. */
export async function countWhere<T extends keyof Database>(
  db: Db,
  table: T,
  match: Match<T>,
): Promise<number> {
  const row = (await matching(db, table, match)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst()) as { n: number | string | bigint } | undefined;
  // SQLite answers numbers, PostgreSQL strings.
  return Number(row?.n ?? 0);
}

interface AnyQuery {
  select(
    columns: readonly string[] | ((eb: ExpressionBuilder<Database, keyof Database>) => unknown),
  ): AnyQuery;
  selectAll(): AnyQuery;
  where(column: string, op: '=', value: unknown): AnyQuery;
  executeTakeFirst(): Promise<unknown>;
  execute(): Promise<unknown[]>;
}

/** A write's `where`: the rows of `table` whose columns equal `match`, which must name a column. */
function writeMatching<Q extends { where(column: string, op: '=', value: unknown): Q }>(
  query: Q,
  match: Record<string, unknown>,
): Q {
  const entries = Object.entries(match);
  if (entries.length === 0) throw new Error('a write needs at least one column to match');
  for (const [column, value] of entries) query = query.where(column, '=', value);
  return query;
}

/** Inserts `row` into `table` and answers it as stored, generated columns included. */
export function insertReturning<T extends keyof Database>(
  db: Db,
  table: T,
  row: Insertable<Database[T]>,
): Promise<Row<T>> {
  const query = db.insertInto(table) as unknown as AnyInsert;
  return query.values(row).returningAll().executeTakeFirstOrThrow() as Promise<Row<T>>;
}

/** Sets `values` on the rows of `table` whose columns equal `match`; answers how many it changed. */
export async function updateWhere<T extends keyof Database>(
  db: Db,
  table: T,
  match: Match<T>,
  values: Updateable<Database[T]>,
): Promise<number> {
  const query = writeMatching((db.updateTable(table) as unknown as AnyWrite).set(values), match);
  return Number((await query.executeTakeFirst()).numUpdatedRows ?? 0);
}

/** Deletes the rows of `table` whose columns equal `match`; answers how many it deleted. */
export async function deleteWhere<T extends keyof Database>(
  db: Db,
  table: T,
  match: Match<T>,
): Promise<number> {
  const query = writeMatching(db.deleteFrom(table) as unknown as AnyWrite, match);
  return Number((await query.executeTakeFirst()).numDeletedRows ?? 0);
}

// Kysely cannot type a write to a table chosen at run time either: the exported signatures do.
interface AnyInsert {
  values(row: unknown): AnyInsert;
  returningAll(): AnyInsert;
  executeTakeFirstOrThrow(): Promise<unknown>;
}
interface AnyWrite {
  set(values: unknown): AnyWrite;
  where(column: string, op: '=', value: unknown): AnyWrite;
  executeTakeFirst(): Promise<{ numUpdatedRows?: bigint; numDeletedRows?: bigint }>;
}

/** The tables with a `member` column (a row about one member). */
export type MemberTable = {
  [T in keyof Database]: Row<T> extends { member: number } ? T : never;
}[keyof Database];

/** A member's name as lists show it. */
export interface MemberName {
  firstName: string;
  lastName: string | null;
}

/**
 * The rows of `table` whose columns equal `match`, with only `columns` and their member's name,
 * by first name, last name and member id.
 */
export function namedMembersWhere<T extends MemberTable, C extends keyof Row<T> & string>(
  db: Db,
  table: T,
  match: Match<T>,
  columns: readonly C[],
): Promise<(Pick<Row<T>, C> & MemberName)[]> {
  let query = (db.selectFrom(`${table} as t`) as unknown as AnyListing)
    .innerJoin('members as m', 'm.id', 't.member')
    .select([...columns.map((c) => `t.${c}`), 'm.firstName', 'm.lastName']);
  for (const [column, value] of Object.entries(match)) query = query.where(`t.${column}`, '=', value);
  const rows = query.orderBy('m.firstName').orderBy('m.lastName').orderBy('t.member').execute();
  return rows as Promise<(Pick<Row<T>, C> & MemberName)[]>;
}

interface AnyListing {
  innerJoin(table: string, left: string, right: string): AnyListing;
  select(columns: readonly string[]): AnyListing;
  where(column: string, op: '=', value: unknown): AnyListing;
  orderBy(column: string): AnyListing;
  execute(): Promise<unknown[]>;
}

/**
 * `columns` of the table known as `alias` in a joined select: `qualified('b', ['id', 'member'])`
 * is `['b.id', 'b.member']`; the query checks the names.
 */
export function qualified<A extends string, C extends string>(
  alias: A,
  columns: readonly C[],
): `${A}.${C}`[] {
  return columns.map((column) => `${alias}.${column}` as `${A}.${C}`);
}

/**
 * Every row of `table` whose columns equal `match` and whose `column` is one of `values`, with
 * all its columns or only `columns`, in no particular order.
 */
export function allWhereIn<T extends keyof Database, C extends keyof Row<T> & string>(
  db: Db,
  table: T,
  match: Match<T>,
  column: C,
  values: readonly Exclude<Row<T>[C], null>[],
): Promise<Row<T>[]>;
export function allWhereIn<
  T extends keyof Database,
  C extends keyof Row<T> & string,
  S extends keyof Row<T> & string,
>(
  db: Db,
  table: T,
  match: Match<T>,
  column: C,
  values: readonly Exclude<Row<T>[C], null>[],
  columns: readonly S[],
): Promise<Pick<Row<T>, S>[]>;
export function allWhereIn(
  db: Db,
  table: keyof Database,
  match: Record<string, unknown>,
  column: string,
  values: readonly unknown[],
  columns?: readonly string[],
) {
  const query = matching(db, table, match);
  const selected = (columns ? query.select(columns) : query.selectAll()) as unknown as AnyInQuery;
  return selected.where(column, 'in', [...values]).execute();
}

interface AnyInQuery {
  where(column: string, op: 'in', values: unknown[]): AnyInQuery;
  execute(): Promise<unknown[]>;
}

/**
 * Of `values`, those `column` holds in rows of `table` whose columns equal `match` (once per
 * such row, in no particular order).
 */
export async function valuesWhere<T extends keyof Database, C extends keyof Row<T> & string>(
  db: Db,
  table: T,
  match: Match<T>,
  column: C,
  values: readonly Exclude<Row<T>[C], null>[],
): Promise<Row<T>[C][]> {
  if (values.length === 0) return [];
  const query = matching(db, table, match).select([column]) as unknown as AnyInQuery;
  const rows = (await query.where(column, 'in', [...values]).execute()) as Row<T>[];
  return rows.map((r) => r[column]);
}

/** The tables of rows that expire at `expiresAt` (a trainer's waiting tap, a pending key assignment). */
export type ExpiringTable = {
  [T in keyof Database]: Row<T> extends { id: number; expiresAt: string } ? T : never;
}[keyof Database];

/** The rows of `table` whose columns equal `match` and that have not expired at `at`, newest first. */
export function unexpiredWhere<T extends ExpiringTable>(
  db: Db,
  table: T,
  match: Match<T>,
  at: string,
): Promise<Row<T>[]> {
  const query = matching(db, table, match).selectAll() as unknown as AnyExpiring;
  return query.where('expiresAt', '>', at).orderBy('id', 'desc').execute() as Promise<Row<T>[]>;
}

interface AnyExpiring {
  where(column: 'expiresAt', op: '>', value: string): AnyExpiring;
  orderBy(column: 'id', direction: 'desc'): AnyExpiring;
  execute(): Promise<unknown[]>;
}

/** The tables whose rows have an increasing id (the newest row has the highest). */
export type IdTable = {
  [T in keyof Database]: Row<T> extends { id: number } ? T : never;
}[keyof Database];

/** The newest row (highest id) of `table` whose columns equal `match`, with only `columns`. */
export function newestWhere<T extends IdTable, C extends keyof Row<T> & string>(
  db: Db,
  table: T,
  match: Match<T>,
  columns: readonly C[],
): Promise<Pick<Row<T>, C> | undefined> {
  const query = matching(db, table, match).select(columns) as unknown as AnyNewest;
  return query.orderBy('id', 'desc').limit(1).executeTakeFirst() as Promise<Pick<Row<T>, C> | undefined>;
}

interface AnyNewest {
  orderBy(column: 'id', direction: 'desc'): AnyNewest;
  limit(n: number): AnyNewest;
  executeTakeFirst(): Promise<unknown>;
}
