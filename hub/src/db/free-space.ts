import { statfsSync } from 'node:fs';

/** Below this, an I/O error of SQLite is taken for a full disk (its WAL index alone needs 32 KiB). */
const nearlyFullBytes = 1024 * 1024;

/**
 * True when the file system holding `dir` has (almost) no space left for this user. SQLite
 * reports some writes that fail for want of space as I/O errors (SQLITE_IOERR_SHMSIZE when its
 * WAL index cannot grow), not as SQLITE_FULL; this tells those apart. False when unknown.
 */
export function noSpaceLeft(dir: string): boolean {
  try {
    const fs = statfsSync(dir);
    // root may use the blocks reserved for it; anyone else only the available ones.
    const blocks = process.getuid?.() === 0 ? fs.bfree : fs.bavail;
    return blocks * fs.bsize < nearlyFullBytes;
  } catch {
    return false;
  }
}
