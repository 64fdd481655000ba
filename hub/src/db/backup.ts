import { closeSync, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { ConfigError } from '@makerspace/shared';
import { isPostgresUrl } from './database.js';
import { knownMigrations } from './migrate.js';

/** What a backup holds, for the command's one line of JSON. */
export interface BackupSummary {
  file: string;
  bytes: number;
  migration: string | null;
}

function sqliteFile(databaseUrl: string, command: string): string {
  if (isPostgresUrl(databaseUrl))
    throw new ConfigError(command, [
      'DATABASE_URL is PostgreSQL: use pg_dump and pg_restore (docs/OPERATIONS.md, "Backups")',
    ]);
  const file = databaseUrl.replace(/^sqlite:(\/\/)?/, '');
  if (file === ':memory:') throw new ConfigError(command, ['an in-memory database has nothing to back up']);
  return file;
}

/**
 * Checks that `file` is a hub database this version can run: an intact SQLite file whose
 * migrations are all known here. Returns the newest migration; throws a ConfigError naming the
 * problem otherwise.
 */
export function checkBackupFile(file: string, command = 'restore'): string | null {
  if (!existsSync(file)) throw new ConfigError(command, [`${file} does not exist`]);
  const header = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== 'SQLite format 3\0')
    throw new ConfigError(command, [`${file} is not an SQLite database`]);
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    return checkOpenBackup(db, file, command);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(command, [`${file} is damaged: ${(err as Error).message}`]);
  } finally {
    db.close();
  }
}

function checkOpenBackup(db: SQLite.Database, file: string, command: string): string | null {
  const integrity = db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
  const problems = integrity.map((r) => r.integrity_check).filter((r) => r !== 'ok');
  if (problems.length)
    throw new ConfigError(command, [`${file} is damaged: ${problems.slice(0, 3).join('; ')}`]);
  const table = db
    .prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'")
    .get();
  if (!table)
    throw new ConfigError(command, [`${file} is not a makerspace-hub database (no migrations table)`]);
  const applied = (
    db.prepare('select name from kysely_migration order by name').all() as { name: string }[]
  ).map((r) => r.name);
  const known = new Set(knownMigrations());
  const unknown = applied.filter((name) => !known.has(name));
  if (unknown.length)
    throw new ConfigError(command, [
      `${file} comes from a newer hub (migrations ${unknown.join(', ')}): upgrade this hub first`,
    ]);
  return applied.at(-1) ?? null;
}

/**
 * `makerspace-hub backup FILE`: SQLite's online backup API copies a consistent snapshot while
 * the hub keeps running (it restarts the copy when the hub writes in between). The copy goes to
 * FILE.partial and is checked before it takes FILE's name, so FILE is never half written.
 */
export async function backupDatabase(databaseUrl: string, target: string): Promise<BackupSummary> {
  const file = sqliteFile(databaseUrl, 'backup');
  if (!existsSync(file)) throw new ConfigError('backup', [`no database at ${file}`]);
  if (existsSync(target)) throw new ConfigError('backup', [`${target} exists: name a new file`]);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  const source = new SQLite(file, { fileMustExist: true, timeout: 5000 });
  try {
    await source.backup(partial);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    source.close();
  }
  try {
    const migration = checkBackupFile(partial, 'backup');
    syncFile(partial);
    renameSync(partial, target);
    return { file: target, bytes: statSync(target).size, migration };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

/**
 * `makerspace-hub restore FILE`: checks FILE, refuses while the hub has the database open, keeps
 * the current database as `<database>.before-restore-<time>` and puts a copy of FILE in its place.
 */
export function restoreDatabase(
  databaseUrl: string,
  backup: string,
  at = new Date(),
): { restored: string; previous: string | null; migration: string | null } {
  const file = sqliteFile(databaseUrl, 'restore');
  const migration = checkBackupFile(backup);
  if (existsSync(file)) assertNotInUse(file);
  const incoming = `${file}.restoring`;
  rmSync(incoming, { force: true });
  const source = new SQLite(backup, { readonly: true, fileMustExist: true });
  try {
    // A copy through SQLite rather than of the bytes: a backup that was taken with its -wal file
    // beside it comes out whole.
    source.exec(`VACUUM INTO '${incoming.replaceAll("'", "''")}'`);
  } finally {
    source.close();
  }
  syncFile(incoming);
  let previous: string | null = null;
  if (existsSync(file)) {
    previous = `${file}.before-restore-${at.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(file, previous);
  }
  // A -wal or -shm file left from the replaced database must not be applied to the new one.
  for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  renameSync(incoming, file);
  return { restored: file, previous, migration };
}

/** SQLite grants an exclusive lock only when no other connection (the running hub) has the file open. */
function assertNotInUse(file: string): void {
  const db = new SQLite(file, { fileMustExist: true, timeout: 200 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY'))
      throw new ConfigError('restore', [
        `${file} is in use: stop the hub first (systemctl stop makerspace-hub), then restore`,
      ]);
    throw err;
  } finally {
    db.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
