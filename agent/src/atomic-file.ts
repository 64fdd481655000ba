import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

let counter = 0;

/** Writes a file so that a reader or a power cut sees the old or the new content, never half. */
export async function writeFileAtomic(file: string, content: string, mode = 0o600): Promise<void> {
  const temp = `${file}.${process.pid}.${++counter}.tmp`;
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  await syncDir(dirname(file));
}

/** fsync of a directory, so a rename survives a power cut. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
