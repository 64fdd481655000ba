import type { ColumnDefinitionBuilder, CreateTableBuilder } from 'kysely';
import type { DialectName } from '../database.js';

// Columns and sets of columns the migrations add to their tables. Released migrations use these:
// a change here must leave the DDL they produce the same.

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

/** Nullable text columns, in this order (`.$call(texts('address', 'city'))`). */
export function texts(...names: string[]) {
  return columns(Object.fromEntries(names.map((name) => [name, 'text' as const])));
}

/** Not-null columns of one type without a default, in this order. */
export function required(type: 'integer' | 'text', ...names: string[]) {
  return columns(Object.fromEntries(names.map((name) => [name, `${type} not null` as const])));
}

/** Not-null columns of one type with their defaults, in this order (`{ prorate: 0, ... }`). */
export function withDefaults(type: 'integer' | 'text', defaults: Record<string, number | string>) {
  return <T extends string>(table: CreateTableBuilder<T, any>) => {
    let builder = table;
    for (const [name, value] of Object.entries(defaults))
      builder = builder.addColumn(name, type, (c) => c.notNull().defaultTo(value));
    return builder;
  };
}

/** A not-null reference whose row goes when the referenced one goes (`cascadeTo('accounts.id')`). */
export function cascadeTo(target: string) {
  return (c: ColumnDefinitionBuilder) => c.notNull().references(target).onDelete('cascade');
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

/** When and by whom a row was made. */
export function withCreation<T extends string>(table: CreateTableBuilder<T, any>) {
  return table.addColumn('createdAt', 'text', (c) => c.notNull()).addColumn('createdBy', 'integer');
}
