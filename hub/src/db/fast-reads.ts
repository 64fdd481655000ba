import { closeSync, openSync, readSync } from 'node:fs';
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
  /**
   * A number that stays the same while nothing is committed to the database, by this process or
   * any other, and changes with every commit; undefined where the reads cannot tell (PostgreSQL,
   * an in-memory database) or at a moment they cannot (a commit being written). Answers read
   * under one stamp can be kept while it lasts (db/read-memo.ts).
   */
  commitStamp?(): number | undefined;
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

/**
 * The commit stamp of a SQLite database in WAL mode, from the header of its WAL index (the
 * `-shm` file beside it): every commit, by any connection of any process, rewrites that header
 * (its change counter, its last frame, its checksum), and SQLite's own readers decide from it
 * whether their cached pages are still good (https://sqlite.org/walformat.html, 2.1). The header
 * is kept twice, the second copy written first; one `pread` of both that finds them different
 * caught a commit in the middle, and tells nothing.
 */
function walCommitStamp(file: string): { stamp(): number | undefined; close(): void } {
  let fd: number | null | undefined;
  const header = Buffer.alloc(96);
  const seen = Buffer.alloc(48);
  let stamp = 0;
  return {
    stamp() {
      if (fd === undefined) {
        try {
          fd = openSync(`${file}-shm`, 'r');
        } catch {
          fd = null;
        }
      }
      if (fd === null) return undefined;
      // Bytes 0-47 and 48-95: the two copies; byte 12 is isInit.
      if (readSync(fd, header, 0, 96, 0) < 96 || header[12] !== 1) return undefined;
      if (header.compare(header, 48, 96, 0, 48) !== 0) return undefined;
      if (header.compare(seen, 0, 48, 0, 48) !== 0) {
        header.copy(seen, 0, 0, 48);
        stamp++;
      }
      return stamp;
    },
    close() {
      if (typeof fd === 'number') closeSync(fd);
      fd = null;
    },
  };
}

/** Prepared statements on a read-only SQLite connection (see above), and its commit stamp. */
export function sqliteReads(reader: SQLite.Database): Required<FastReads> & { close(): void } {
  const commits = walCommitStamp(reader.name);
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
    commitStamp: commits.stamp,
    close: () => {
      commits.close();
      reader.close();
    },
  };
}
