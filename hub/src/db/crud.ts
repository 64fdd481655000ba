import type { ExpressionBuilder, Insertable, Kysely, Selectable, UpdateObject } from 'kysely';
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

// ---- conditions beyond equality, and the writes --------------------------------------------

/** Comparisons of a column with values: `{ '>': now }` stands for `column > now`. */
export type Compare<V> = { readonly [O in '<' | '<=' | '>' | '>=' | '<>']?: V };

type Condition<V> =
  | Exclude<V, null>
  | readonly Exclude<V, null>[]
  | Compare<Exclude<V, null>>
  | (null extends V ? null : never)
  | undefined;

/**
 * Conditions on a table's columns that a row meets all of: a value (`=`), null (`is null`), a
 * list (`in`; an empty list matches no row) or comparisons; undefined is no condition (an
 * optional filter). `{ member: 3, revokedAt: null, expiresAt: { '>': now } }`.
 */
export type Where<T extends keyof Database> = { [C in keyof Row<T>]?: Condition<Row<T>[C]> };

type Column<T extends keyof Database> = keyof Row<T> & string;

/** What a read takes of the rows: only `columns` (else all), in `orderBy` order, `limit` of them. */
export interface Read<T extends keyof Database, C extends Column<T>> {
  columns?: readonly C[];
  /** Columns to sort by, each ascending or with ` desc`: `['date', 'id desc']`. */
  orderBy?: readonly (Column<T> | `${Column<T>} desc`)[];
  limit?: number;
  /** Each row once: with `columns`, each distinct combination of them. */
  distinct?: boolean;
}

/** A change of columns: values, or expressions of the row (`eb('lockVersion', '+', 1)`). */
export type Changes<T extends keyof Database> =
  | UpdateObject<Database, T>
  | ((eb: ExpressionBuilder<Database, T>) => UpdateObject<Database, T>);

/** The rows of `table` that meet `where`, as `read` asks (all columns, in no order, without it). */
export function selectWhere<T extends keyof Database, C extends Column<T> = Column<T>>(
  db: Db,
  table: T,
  where: Where<T>,
  read: Read<T, C> = {},
): Promise<Pick<Row<T>, C>[]> {
  const query = reading(db, table, where, read);
  return (query ? query.execute() : Promise.resolve([])) as Promise<Pick<Row<T>, C>[]>;
}

/** The first row of `table` that meets `where` (see selectWhere for `read`); undefined when none does. */
export function selectFirstWhere<T extends keyof Database, C extends Column<T> = Column<T>>(
  db: Db,
  table: T,
  where: Where<T>,
  read: Read<T, C> = {},
): Promise<Pick<Row<T>, C> | undefined> {
  const query = reading(db, table, where, read);
  return (query ? query.executeTakeFirst() : Promise.resolve(undefined)) as Promise<
    Pick<Row<T>, C> | undefined
  >;
}

/** Does a row of `table` meet `where`? */
export async function existsWhere<T extends keyof Database>(
  db: Db,
  table: T,
  where: Where<T>,
): Promise<boolean> {
  const query = narrowed(db.selectFrom(table) as unknown as LooseQuery, where);
  if (!query) return false;
  const row = await query
    .select((eb) => eb.lit(1).as('one'))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts a row into `table` and answers it as stored (with its id and defaults). */
export function insertReturning<T extends keyof Database>(
  db: Db,
  table: T,
  values: Insertable<Database[T]>,
): Promise<Row<T>> {
  const insert = db.insertInto(table) as unknown as LooseQuery;
  return insert.values(values).returningAll().executeTakeFirstOrThrow() as Promise<Row<T>>;
}

/** Writes `changes` on the rows of `table` that meet `where`; answers how many it changed. */
export async function updateWhere<T extends keyof Database>(
  db: Db,
  table: T,
  where: Where<T>,
  changes: Changes<T>,
): Promise<number> {
  const query = narrowed((db.updateTable(table) as unknown as LooseQuery).set(changes), writing(where));
  if (!query) return 0;
  const result = (await query.executeTakeFirst()) as { numUpdatedRows: bigint };
  return Number(result.numUpdatedRows);
}

/**
 * Writes `changes` on the rows of `table` that meet `where`; answers them as written (only
 * `columns` of them when given).
 */
export function updateReturning<T extends keyof Database, C extends Column<T> = Column<T>>(
  db: Db,
  table: T,
  where: Where<T>,
  changes: Changes<T>,
  columns?: readonly C[],
): Promise<Pick<Row<T>, C>[]> {
  const query = narrowed((db.updateTable(table) as unknown as LooseQuery).set(changes), writing(where));
  if (!query) return Promise.resolve([]);
  return (columns ? query.returning(columns) : query.returningAll()).execute() as Promise<Pick<Row<T>, C>[]>;
}

/** Deletes the rows of `table` that meet `where`; answers how many it deleted. */
export async function deleteWhere<T extends keyof Database>(
  db: Db,
  table: T,
  where: Where<T>,
): Promise<number> {
  const query = narrowed(db.deleteFrom(table) as unknown as LooseQuery, writing(where));
  if (!query) return 0;
  const result = (await query.executeTakeFirst()) as { numDeletedRows: bigint };
  return Number(result.numDeletedRows);
}

/** A write's `where`, which must hold a condition: a write without one would change every row. */
function writing(where: Record<string, unknown>): Record<string, unknown> {
  if (!Object.values(where).some((condition) => condition !== undefined))
    throw new Error('a write needs at least one condition on its rows');
  return where;
}

/** The select of selectWhere and selectFirstWhere; undefined when an empty list leaves no row to read. */
function reading(
  db: Db,
  table: keyof Database,
  where: Record<string, unknown>,
  read: { columns?: readonly string[]; orderBy?: readonly string[]; limit?: number; distinct?: boolean },
): LooseQuery | undefined {
  let query = narrowed(db.selectFrom(table) as unknown as LooseQuery, where);
  if (!query) return undefined;
  query = read.columns ? query.select(read.columns) : query.selectAll();
  if (read.distinct) query = query.distinct();
  for (const order of read.orderBy ?? []) {
    const [column, direction] = order.split(' ');
    query = direction === 'desc' ? query.orderBy(column, 'desc') : query.orderBy(column);
  }
  return read.limit === undefined ? query : query.limit(read.limit);
}

/** `query` with a where clause for each condition of `where` (see Where); undefined when one is an empty list. */
function narrowed(query: LooseQuery, where: Record<string, unknown>): LooseQuery | undefined {
  // Kysely cannot type a query over a table chosen at run time: the exported signatures do.
  for (const [column, condition] of Object.entries(where)) {
    if (condition === undefined) continue;
    if (condition === null) query = query.where(column, 'is', null);
    else if (Array.isArray(condition)) {
      if (condition.length === 0) return undefined;
      query = query.where(column, 'in', condition);
    } else if (typeof condition === 'object' && !(condition instanceof Uint8Array)) {
      for (const [op, value] of Object.entries(condition)) query = query.where(column, op, value);
    } else query = query.where(column, '=', condition);
  }
  return query;
}

interface LooseQuery {
  select(
    columns: readonly string[] | ((eb: ExpressionBuilder<Database, keyof Database>) => unknown),
  ): LooseQuery;
  selectAll(): LooseQuery;
  distinct(): LooseQuery;
  where(column: string, op: string, value: unknown): LooseQuery;
  orderBy(column: string, direction?: 'desc'): LooseQuery;
  limit(n: number): LooseQuery;
  values(values: unknown): LooseQuery;
  set(changes: unknown): LooseQuery;
  returning(columns: readonly string[]): LooseQuery;
  returningAll(): LooseQuery;
  executeTakeFirst(): Promise<unknown>;
  executeTakeFirstOrThrow(): Promise<unknown>;
  execute(): Promise<unknown[]>;
}

/** A row of `table` as read: `TableRow<'members'>`. */
export type TableRow<T extends keyof Database> = Selectable<Database[T]>;

/** A row of `table` as an insert writes it (generated columns may be left out). */
export type NewRow<T extends keyof Database> = Insertable<Database[T]>;

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

/** The tables with a `resource` column (a row about one resource). */
export type ResourceTable = {
  [T in keyof Database]: Row<T> extends { resource: number } ? T : never;
}[keyof Database];

/** A member's name beside a row of theirs, both null when the member is gone. */
export interface MaybeMemberName {
  firstName: string | null;
  lastName: string | null;
}

/**
 * The rows of `table` that meet `where`, as `read` asks (only its `columns`), each with its
 * member's name; null names when the member is gone.
 */
export function selectWhereWithMemberName<T extends MemberTable, C extends Column<T>>(
  db: Db,
  table: T,
  where: Where<T>,
  read: Omit<Read<T, C>, 'distinct'> & { columns: readonly C[] },
): Promise<(Pick<Row<T>, C> & MaybeMemberName)[]> {
  const join = { table: 'members', via: 'member', outer: true, columns: ['p.firstName', 'p.lastName'] };
  return readingJoined(db, table, join, where, read) as Promise<(Pick<Row<T>, C> & MaybeMemberName)[]>;
}

/**
 * The rows of `table` that meet `where`, as `read` asks (only its `columns`), each with its
 * resource's name (`resourceName`).
 */
export function selectWhereWithResourceName<T extends ResourceTable, C extends Column<T>>(
  db: Db,
  table: T,
  where: Where<T>,
  read: Omit<Read<T, C>, 'distinct'> & { columns: readonly C[] },
): Promise<(Pick<Row<T>, C> & { resourceName: string })[]> {
  const join = { table: 'resources', via: 'resource', outer: false, columns: ['p.name as resourceName'] };
  return readingJoined(db, table, join, where, read) as Promise<
    (Pick<Row<T>, C> & { resourceName: string })[]
  >;
}

/**
 * The rows of `table` (as `t`) that meet `where`, joined with the row their `via` column refers
 * to (`join.table` as `p`; a left join when `outer`): the read's columns of `t`, then `join.columns`.
 */
function readingJoined(
  db: Db,
  table: keyof Database,
  join: { table: string; via: string; outer: boolean; columns: readonly string[] },
  where: Record<string, unknown>,
  read: { columns: readonly string[]; orderBy?: readonly string[]; limit?: number },
): Promise<unknown[]> {
  // Kysely cannot type a query over a table chosen at run time: the exported signatures do.
  const from = db.selectFrom(`${table} as t` as keyof Database) as unknown as JoiningQuery;
  const parent = [`${join.table} as p`, 'p.id', `t.${join.via}`] as const;
  const joined = join.outer ? from.leftJoin(...parent) : from.innerJoin(...parent);
  const conditions = Object.entries(where).map(([column, condition]) => [`t.${column}`, condition]);
  let query = narrowed(joined, Object.fromEntries(conditions));
  if (!query) return Promise.resolve([]);
  query = query.select([...read.columns.map((column) => `t.${column}`), ...join.columns]);
  for (const order of read.orderBy ?? []) {
    const [column, direction] = order.split(' ');
    query = direction === 'desc' ? query.orderBy(`t.${column}`, 'desc') : query.orderBy(`t.${column}`);
  }
  return (read.limit === undefined ? query : query.limit(read.limit)).execute();
}

interface JoiningQuery {
  innerJoin(table: string, left: string, right: string): LooseQuery;
  leftJoin(table: string, left: string, right: string): LooseQuery;
}
