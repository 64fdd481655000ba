import { readFileSync } from 'node:fs';
import { readlink, rename, rm, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { UpdateProgress } from '@makerspace/shared/agent';
import { syncDir, writeFileAtomic } from './atomic-file.js';

/*
 * The agent's releases beside each other (docs/OPERATIONS.md, "Updating agents"), in
 * `<dataDir>/releases/`:
 *   <version>/        an installed release (agent/, hardware/, shared/, node_modules/@makerspace)
 *   current           symlink to the release that runs; absent: the installation the unit names
 *   node_modules      symlink to the installation's third-party modules (the releases share them)
 *   pending.json      an update that has not yet connected to the hub (the marker)
 *   result.json       the end of an update, kept until the hub has heard it
 * agent/bin/release-launcher.js reads the same files before any agent code is loaded: it starts
 * `current` and rolls back when the marker is past its deadline. Keep the two in step.
 */

/** The marker: written just before the switch to the new release, removed when it connected. */
export interface PendingUpdate {
  id: string;
  version: string;
  /** What `current` pointed to before (null: there was no link, the installation ran). */
  previous: string | null;
  /** The version that ran before. */
  previousVersion: string;
  /** When the new version must have connected; past it, the launcher rolls back. */
  deadline: string;
  confirmSeconds: number;
}

export const releaseKeyFile = (dataDir: string) => join(dataDir, 'release-key.pem');
export const releasesDir = (dataDir: string) => join(dataDir, 'releases');
const markerFile = (dataDir: string) => join(releasesDir(dataDir), 'pending.json');
const resultFile = (dataDir: string) => join(releasesDir(dataDir), 'result.json');

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

export const readMarker = (dataDir: string) => readJson<PendingUpdate>(markerFile(dataDir));
export const writeMarker = (dataDir: string, marker: PendingUpdate) =>
  writeFileAtomic(markerFile(dataDir), `${JSON.stringify(marker)}\n`);
export const removeMarker = (dataDir: string) => rm(markerFile(dataDir), { force: true });

export const readResult = (dataDir: string) => readJson<UpdateProgress>(resultFile(dataDir));
export const writeResult = (dataDir: string, result: UpdateProgress) =>
  writeFileAtomic(resultFile(dataDir), `${JSON.stringify(result)}\n`);
export const removeResult = (dataDir: string) => rm(resultFile(dataDir), { force: true });

/** Where `current` points (as written: a release's name or an absolute path), or null. */
export async function currentTarget(dataDir: string): Promise<string | null> {
  try {
    return await readlink(join(releasesDir(dataDir), 'current'));
  } catch {
    return null;
  }
}

/**
 * Points `current` at `target` (null: removes it) in one step: a new link beside it, renamed over
 * it. Whoever reads `current` sees the old or the new release, never none.
 */
export async function switchCurrent(dataDir: string, target: string | null): Promise<void> {
  const dir = releasesDir(dataDir);
  const link = join(dir, 'current');
  if (target === null) {
    await unlink(link).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  } else {
    const next = join(dir, 'current.next');
    await rm(next, { force: true });
    await symlink(target, next);
    await rename(next, link);
  }
  await syncDir(dir);
}
