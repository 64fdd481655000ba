import type SQLite from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import type { Db } from './crud.js';

/**
 * Reads on the hot paths (switch-on, card taps), written once as SQL with `?` placeholders and
 * quoted camelCase identifiers, so the same text runs on both dialects. They skip Kysely's
 * query builder, which costs more than running such a small query:
 *
 * - on a SQLite file they run as prepared statements on a second, read-only connection. It
 *   sees committed data only (WAL readers never see a transaction in progress) and never waits
 *   behind the writer's connection, whose transactions hold it across awaits;
 * - elsewhere (PostgreSQL, an in-memory SQLite database) they run through Kysely's executor,
 *   with the placeholders rewritten once per text.
 */
export interface FastReads {
  rows<T>(text: string, params: readonly unknown[]): Promise<T[]>;
  first<T>(text: string, params: readonly unknown[]): Promise<T | undefined>;
  /** Rows as arrays of column values in select order (no object per row: for long pages). */
  tuples<T extends unknown[]>(text: string, params: readonly unknown[]): Promise<T[]>;
}

/** Whether a Kysely handle (a transaction included) talks to PostgreSQL. */
export function isPostgres(db: Db): boolean {
  return (db.getExecutor().adapter.constructor.name ?? '').toLowerCase().includes('postgres');
}

/** `?` -> `$1`, `$2`, ... (the texts here have no `?` inside string literals). */
export function numberedPlaceholders(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

const pgTexts = new Map<string, string>();

/**
 * One query in plain SQL (`?` placeholders) on any Kysely handle, a transaction included: for
 * hot writes and reads that must see the transaction's own changes.
 */
export async function rawRows<T>(db: Db, text: string, params: readonly unknown[]): Promise<T[]> {
  let compiled = text;
  if (isPostgres(db)) {
    compiled = pgTexts.get(text) ?? numberedPlaceholders(text);
    pgTexts.set(text, compiled);
  }
  return (await db.executeQuery<T>(CompiledQuery.raw(compiled, [...params]))).rows;
}

/** Through Kysely's executor (any dialect): no builder, but the connection is shared. */
export function executorReads(db: Db): FastReads {
  const rows = <T>(text: string, params: readonly unknown[]) => rawRows<T>(db, text, params);
  return {
    rows,
    first: async (text, params) => (await rows<any>(text, params))[0],
    tuples: async (text, params) =>
      (await rows<Record<string, unknown>>(text, params)).map(Object.values) as any[],
  };
}

/** Prepared statements on a read-only SQLite connection (see above). */
export function sqliteReads(reader: SQLite.Database): FastReads {
  const statements = new Map<string, SQLite.Statement>();
  const rawStatements = new Map<string, SQLite.Statement>();
  const statement = (text: string, raw = false) => {
    const cache = raw ? rawStatements : statements;
    let s = cache.get(text);
    if (!s) {
      s = reader.prepare(text);
      if (raw) s.raw(true);
      cache.set(text, s);
    }
    return s;
  };
  return {
    rows: async (text, params) => statement(text).all(...params) as any[],
    first: async (text, params) => statement(text).get(...params) as any,
    tuples: async (text, params) => statement(text, true).all(...params) as any[],
  };
}
