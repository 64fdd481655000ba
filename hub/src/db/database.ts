import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { createRequire } from 'node:module';
import type pgModule from 'pg';
import { executorReads, type FastReads, sqliteReads } from './fast-reads.js';
import type { Database } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Storage {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The raw SQLite handle (hot paths use prepared statements); null on PostgreSQL. */
  sqlite: SQLite.Database | null;
  /** Hot-path reads (db/fast-reads.ts): a read-only second connection on a SQLite file. */
  reads: FastReads;
  /** SQLite: moves the WAL into the database and truncates it (the hub runs it periodically). */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

export interface StorageOptions {
  /** `postgres://...`, `postgresql://...`, `sqlite:/path`, a file path, or `:memory:`. */
  url: string;
  /** PostgreSQL: run everything inside this schema (tests isolate themselves this way). */
  schema?: string;
  poolSize?: number;
  /**
   * SQLite only. 'full' (the default): every commit is on disk before it is acknowledged, also
   * across a power cut. 'normal': commits survive a crash of the hub but the last ones may be
   * lost on a power cut or kernel crash; much faster on disks with slow fsync.
   */
  sqliteSynchronous?: 'full' | 'normal';
}

let pgLoaded: typeof pgModule | null = null;
/** The PostgreSQL client, loaded on first use: a hub on SQLite never holds it. */
function pg(): typeof pgModule {
  if (!pgLoaded) {
    pgLoaded = createRequire(import.meta.url)('pg') as typeof pgModule;
    // PostgreSQL returns bigint (count(*)) and numeric as strings; counts fit in a JS number.
    pgLoaded.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
  }
  return pgLoaded;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

export function createStorage(options: StorageOptions): Storage {
  if (isPostgresUrl(options.url)) {
    const pool = new (pg().Pool)({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      // An unreachable server is an error after 5 s, not a start-up that hangs.
      connectionTimeoutMillis: 5_000,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // An idle connection the server dropped (a restart) must not crash the process: the pool
    // discards it, and the next query opens a new one or fails with its own error.
    pool.on('error', () => {});
    // The same for a connection in use when the server drops it: pg rejects its query and also
    // emits 'error' on the client, which the pool listens to only while the client is idle.
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      sqlite: null,
      reads: executorReads(db),
      checkpoint: async () => {},
      close: () => db.destroy(),
    };
  }
  const file = sqliteFile(options.url);
  if (file !== ':memory:') prepareSqliteFile(file);
  const sqlite = new SQLite(file);
  // WAL keeps readers and the writer out of each other's way; synchronous=FULL makes every
  // acknowledged commit durable (DESIGN 9) unless the operator chose otherwise.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${options.sqliteSynchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  if (file === ':memory:') {
    return {
      db,
      dialect: 'sqlite',
      sqlite,
      reads: executorReads(db),
      checkpoint: async () => {},
      close: () => db.destroy(),
    };
  }
  // SQLite gives the WAL and shared-memory files the database file's mode; set them all the
  // same in case an older hub created them under a looser umask.
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  // Opened lazily: the first hot read comes after the migrations have created the tables.
  let fast: ReturnType<typeof sqliteReads> | null = null;
  const open = () => {
    if (!fast) fast = sqliteReads(openReader(file));
    return fast;
  };
  const reads: FastReads = {
    rows: (text, params) => open().rows(text, params),
    first: (text, params) => open().first(text, params),
    tuples: (text, params) => open().tuples(text, params),
    commitStamp: () => open().commitStamp(),
  };
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    reads,
    checkpoint: async () => {
      // TRUNCATE resets the WAL to zero bytes once every reader is past it; busy means a
      // reader was in the way, and the next checkpoint tries again.
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    },
    close: async () => {
      fast?.close();
      await db.destroy();
    },
  };
}

/** The file of a SQLite DATABASE_URL (`sqlite:` prefix optional). */
export function sqliteFile(url: string): string {
  return url.replace(/^sqlite:(\/\/)?/, '');
}

/**
 * Creates the database file with mode 0600 (and its directory, when missing, with 0700) whatever
 * the umask: it holds hashed tokens and every member's data.
 */
function prepareSqliteFile(file: string): void {
  const dir = dirname(file);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

function openReader(file: string): SQLite.Database {
  const reader = new SQLite(file, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  return reader;
}

/**
 * Kysely prepares a statement for every query; preparing costs more than running a small
 * query, so statements are kept by their SQL text (a query shape) and reused. Kysely runs
 * each statement to its end before the next (no streaming here), so sharing one is safe.
 */
const noRollback = { reader: false, run: () => ({ changes: 0, lastInsertRowid: 0 }) };

function withStatementCache(sqlite: SQLite.Database, max = 1000): SQLite.Database {
  const statements = new Map<string, SQLite.Statement>();
  return new Proxy(sqlite, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (sql: string) => {
          // After SQLITE_FULL or SQLITE_IOERR, SQLite has already rolled the transaction back;
          // Kysely's own ROLLBACK would then fail with "cannot rollback" and hide the real error.
          if (!target.inTransaction && /^\s*rollback\s*$/i.test(sql)) return noRollback;
          let statement = statements.get(sql);
          if (!statement) {
            statement = target.prepare(sql);
            if (statements.size >= max) statements.clear();
            statements.set(sql, statement);
          }
          return statement;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
