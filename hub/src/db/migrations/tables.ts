import type { CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import { cascadeTo } from './columns.js';

// The kinds of table the migrations create, and their indexes. Released migrations use these:
// a change here must leave the DDL they produce the same.

/** Integer primary key that counts up, in either dialect. */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: DialectName) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** An index on these columns, named `<table>_<columns>_idx`. */
export async function index(db: Kysely<any>, table: string, columns: string[], unique = false) {
  let builder = db.schema
    .createIndex(`${table}_${columns.join('_')}_idx`)
    .on(table)
    .columns(columns);
  if (unique) builder = builder.unique();
  await builder.execute();
}

/**
 * A table of an account's records: its id, then `account`, then the rows a record belongs to, if
 * any (`{ member: 'members.id' }`: not null, the record goes when the row goes).
 */
export function accountTable(
  db: Kysely<any>,
  name: string,
  dialect: DialectName,
  belongsTo: Record<string, string> = {},
) {
  let table = withId(db.schema.createTable(name), dialect).addColumn(
    'account',
    'integer',
    cascadeTo('accounts.id'),
  );
  for (const [column, target] of Object.entries(belongsTo))
    table = table.addColumn(column, 'integer', cascadeTo(target));
  return table;
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
