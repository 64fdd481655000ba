import { dirname } from 'node:path';
import { ConfigError } from '@makerspace/shared';
import { isPostgresUrl, sqliteFile } from './db/database.js';
import { noSpaceLeft } from './db/free-space.js';
import { MigrationError } from './db/migrate.js';
import { isDiskFull } from './db/storage-errors.js';
import type { HubSettings } from './settings.js';

/** "PostgreSQL at db.lan:5432/makerspace as makerspace" or "SQLite at /var/lib/...": never a password. */
export function describeDatabase(url: string): string {
  if (isPostgresUrl(url)) {
    try {
      const u = new URL(url);
      const where = `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname || '/'}`;
      return `PostgreSQL at ${where}${u.username ? ` as ${decodeURIComponent(u.username)}` : ''}`;
    } catch {
      return 'PostgreSQL (the URL could not be read)';
    }
  }
  return `SQLite at ${sqliteFile(url)}`;
}

const codeOf = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/**
 * One line that names why the hub could not start and what to do about it. Never a stack trace,
 * never a password.
 */
export function startupFailure(err: unknown, settings: HubSettings | null): string {
  if (err instanceof ConfigError) return err.message;
  const inner = err instanceof MigrationError ? err.cause : err;
  const code = codeOf(inner);
  const message = String((inner as Error)?.message ?? inner).split('\n', 1)[0];
  const database = settings ? describeDatabase(settings.databaseUrl) : 'the database';
  const syscall = (inner as { syscall?: string } | null)?.syscall;
  const port = (inner as { port?: number } | null)?.port;
  if (syscall === 'listen' && code === 'EADDRINUSE') {
    const which = settings && port === settings.mqttPort ? 'HUB_MQTT_PORT' : 'HUB_HTTP_PORT';
    return `cannot start: port ${port} is in use by another program; stop it or set ${which} to a free port (0 picks one)`;
  }
  if (syscall === 'listen' && (code === 'EACCES' || code === 'EPERM')) {
    return `cannot start: no permission to listen on port ${port}; use a port above 1023 (HUB_HTTP_PORT) or give the hub CAP_NET_BIND_SERVICE`;
  }
  if (syscall === 'listen' && code === 'EADDRNOTAVAIL') {
    return `cannot start: ${settings?.httpHost} is not an address of this machine; fix HUB_HTTP_HOST`;
  }
  // A full disk can also surface as an SQLite I/O error (the WAL index could not grow).
  const sqliteDir =
    settings && !isPostgresUrl(settings.databaseUrl) ? dirname(sqliteFile(settings.databaseUrl)) : null;
  if (
    isDiskFull(inner) ||
    (code.startsWith('SQLITE_IOERR') && sqliteDir !== null && noSpaceLeft(sqliteDir))
  ) {
    return `cannot start: the disk of ${database} is full; free space and start again`;
  }
  if (err instanceof MigrationError) {
    return `cannot start: the database schema could not be brought up to date (${err.migration}: ${message}); restore the last backup of ${database} or report this as a bug`;
  }
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET'].includes(code)) {
    return `cannot start: ${database} is unreachable (${code}); check DATABASE_URL and that the server runs`;
  }
  if (code === '28P01' || code === '28000') {
    return `cannot start: ${database} refused the user name or password (${code}); check DATABASE_URL`;
  }
  if (code === '3D000') {
    return `cannot start: ${database} does not exist (${code}); create it (createdb) or fix DATABASE_URL`;
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return `cannot start: ${database} is not a usable SQLite database (${code}); check DATABASE_URL or restore a backup`;
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'EROFS' || code === 'SQLITE_READONLY') {
    return `cannot start: cannot open ${database} for writing (${code}); check that HUB_DATA_DIR exists and the hub's user may write it`;
  }
  if (/secret/i.test(message)) return `cannot start: ${message}`;
  return `cannot start: ${message}${code ? ` (${code})` : ''}`;
}
