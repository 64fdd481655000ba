import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/** Integer primary key that counts up, in either dialect. */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: DialectName) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** The type of a column of bytes (a photo, a PDF) in the dialect. */
export function bytesType(dialect: DialectName) {
  return dialect === 'postgres' ? 'bytea' : 'blob';
}

/** Columns every editable record carries. Timestamps are ISO strings (ms, Z) in both dialects. */
export function withStamps<T extends string>(table: CreateTableBuilder<T, never>) {
  return table
    .addColumn('lockVersion', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addColumn('updatedBy', 'integer');
}

export async function index(db: Kysely<any>, table: string, columns: string[], unique = false) {
  let builder = db.schema
    .createIndex(`${table}_${columns.join('_')}_idx`)
    .on(table)
    .columns(columns);
  if (unique) builder = builder.unique();
  await builder.execute();
}

/** Nullable text columns, in this order (`.$call(texts('address', 'city'))`). */
export function texts(...names: string[]) {
  return <T extends string>(table: CreateTableBuilder<T, any>) => {
    let builder = table;
    for (const name of names) builder = builder.addColumn(name, 'text');
    return builder;
  };
}

/** Not-null columns of one type with their defaults, in this order (`{ prorate: 0, ... }`). */
export function withDefaults(type: 'integer' | 'text', columns: Record<string, number | string>) {
  return <T extends string>(table: CreateTableBuilder<T, any>) => {
    let builder = table;
    for (const [name, value] of Object.entries(columns))
      builder = builder.addColumn(name, type, (c) => c.notNull().defaultTo(value));
    return builder;
  };
}

/** A not-null reference whose row goes when the referenced one goes (`cascadeTo('accounts.id')`). */
export function cascadeTo(target: string) {
  return (c: ColumnDefinitionBuilder) => c.notNull().references(target).onDelete('cascade');
}

/** Not-null columns of one type without a default, in this order. */
export function required(type: 'integer' | 'text', ...names: string[]) {
  return <T extends string>(table: CreateTableBuilder<T, any>) => {
    let builder = table;
    for (const name of names) builder = builder.addColumn(name, type, (c) => c.notNull());
    return builder;
  };
}

/** Nullable integer columns, in this order. */
export function integers(...names: string[]) {
  return <T extends string>(table: CreateTableBuilder<T, any>) => {
    let builder = table;
    for (const name of names) builder = builder.addColumn(name, 'integer');
    return builder;
  };
}

/** A table of an account's records: its id, then `account` (the rows go with their account). */
export function accountTable(db: Kysely<any>, name: string, dialect: DialectName) {
  return withId(db.schema.createTable(name), dialect).addColumn(
    'account',
    'integer',
    cascadeTo('accounts.id'),
  );
}

/**
 * A table of one row per row of another: its key `key` is that row's id (`target`, the row goes
 * with it), then the `account`.
 */
export function sideTable(db: Kysely<any>, name: string, key: string, target: string) {
  return db.schema
    .createTable(name)
    .addColumn(key, 'integer', (c) => c.primaryKey().references(target).onDelete('cascade'))
    .addColumn('account', 'integer', cascadeTo('accounts.id'));
}

/**
 * A table that links two others (`['course', 'training_courses.id']`, `['member', 'members.id']`):
 * one row per pair, keyed by both, that goes when either side goes; `more` adds the columns a
 * link carries. The second side is indexed for look-ups from it.
 */
export async function linkTable(
  db: Kysely<any>,
  name: string,
  [first, firstTarget]: [string, string],
  [second, secondTarget]: [string, string],
  more: (table: CreateTableBuilder<string, any>) => CreateTableBuilder<string, any> = (table) => table,
) {
  await more(
    db.schema
      .createTable(name)
      .addColumn(first, 'integer', cascadeTo(firstTarget))
      .addColumn(second, 'integer', cascadeTo(secondTarget)),
  )
    .addPrimaryKeyConstraint(`${name}_pk`, [first, second])
    .execute();
  await index(db, name, [second]);
}

/** When and by whom a row was made. */
export function withCreation<T extends string>(table: CreateTableBuilder<T, any>) {
  return table.addColumn('createdAt', 'text', (c) => c.notNull()).addColumn('createdBy', 'integer');
}

/** How a plain column is declared: its type, and whether it must hold a value. */
export type PlainColumn = 'text' | 'integer' | 'text not null' | 'integer not null';

/**
 * Plain columns, in this order, declared as in SQL (`{ source: 'text not null', member: 'integer' }`);
 * columns with a default, a reference or a unique value are added on their own.
 */
export function columns(declared: Record<string, PlainColumn>) {
  return <T extends string>(table: CreateTableBuilder<T, any>) => {
    let builder = table;
    for (const [name, column] of Object.entries(declared)) {
      const type = column.startsWith('text') ? 'text' : 'integer';
      builder = column.endsWith(' not null')
        ? builder.addColumn(name, type, (c) => c.notNull())
        : builder.addColumn(name, type);
    }
    return builder;
  };
}
