/**
 * Names the storage failures an operator must act on. A full disk shows up as SQLITE_FULL
 * ("database or disk is full"), ENOSPC from the file system, or PostgreSQL's 53100 (disk_full).
 */
export function isDiskFull(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === '53100' || code === 'EDQUOT';
}

/**
 * Logs a failed storage operation: a full disk as such (with what failed and what to do), any
 * other error as `fallback`.
 */
export function logStorageFailure(
  logger: { error(obj: object, msg: string): void },
  err: unknown,
  operation: string,
  fields: Record<string, unknown>,
  fallback: string,
): void {
  if (isDiskFull(err)) {
    logger.error(
      { err, operation, ...fields },
      `the disk is full: ${operation} failed and nothing of it was stored; free space on the database's disk`,
    );
  } else {
    logger.error({ err, operation, ...fields }, fallback);
  }
}
