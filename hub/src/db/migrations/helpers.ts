import type { CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/** Integer primary key that counts up, in either dialect. */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: DialectName) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
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
