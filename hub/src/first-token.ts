import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Saves the first owner's API token to `first-owner-token` in the data directory, mode 0600, so
 * a first start whose terminal output was lost (a service, a closed window) does not lose the
 * only way in. The log only names the file.
 */
export function writeFirstToken(dataDir: string, token: string): string {
  const file = join(dataDir, 'first-owner-token');
  if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
