import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { hubCli, stopAll, tempDir } from '../support/processes.js';

afterEach(async () => {
  await stopAll();
});

/**
 * A full disk needs a file system of its own: a small tmpfs, mounted in a private mount
 * namespace (`unshare`), so nothing stays mounted whatever happens to the test. Root mounts it
 * directly; anyone else through a user namespace, where the kernel allows that. Returns the
 * `unshare` options that work, or why none does.
 */
function mountNamespace(): { args: string[] } | { reason: string } {
  const tries =
    process.getuid?.() === 0 ? [[], ['--user', '--map-root-user']] : [['--user', '--map-root-user']];
  const problems: string[] = [];
  for (const extra of tries) {
    const args = [...extra, '--mount', '--propagation', 'private'];
    const probe = spawnSync(
      'unshare',
      [...args, 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs "$1"', 'sh', tempDir('full-disk-probe-')],
      { encoding: 'utf8', timeout: 10_000 },
    );
    if (probe.status === 0) return { args };
    problems.push((probe.error?.message ?? probe.stderr).trim() || `exit ${probe.status}`);
  }
  // A file-size limit (ulimit -f) is no full disk: writes fail with EFBIG, not ENOSPC.
  return {
    reason: `a full disk needs a small tmpfs, mounted as root or in a user namespace; neither works here (${problems.join('; ')})`,
  };
}
const namespace = mountNamespace();

/**
 * Inside the namespace: an 8 MiB tmpfs as the data directory (room for `init`, whose migrations write a few MiB of WAL), optionally a database made by an
 * earlier start, then every free block filled, then `serve`. Prints the free blocks first.
 */
function serveOnFullDisk(withDatabase: boolean) {
  const args = 'args' in namespace ? namespace.args : [];
  const script = [
    'set -e',
    'mount -t tmpfs -o size=8m,mode=0700 tmpfs "$HUB_DATA_DIR"',
    withDatabase ? `"$NODE" "$HUB_CLI" init --account Lab --email owner@lab.example >/dev/null 2>&1` : ':',
    'dd if=/dev/zero of="$HUB_DATA_DIR/filler" bs=4k 2>/dev/null || true',
    'echo "free blocks: $(stat -f -c %a "$HUB_DATA_DIR")"',
    'exec "$NODE" "$HUB_CLI" serve',
  ].join('\n');
  return new Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
    triedToExitMs: number;
    lineToExitMs: number;
  }>((resolve) => {
    const child = spawn('unshare', [...args, 'sh', '-c', script], {
      env: {
        ...process.env,
        NODE: process.execPath,
        HUB_CLI: hubCli,
        HUB_DATA_DIR: tempDir('full-disk-'),
        HUB_HTTP_HOST: '127.0.0.1',
        HUB_HTTP_PORT: '0',
        HUB_MQTT_PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let databaseAt = 0;
    let lineAt = 0;
    child.stdout.on('data', (c) => {
      stdout += c;
      // The hub names its database before it opens it: the attempt begins there.
      if (!databaseAt && stdout.includes('"msg":"database: ')) databaseAt = Date.now();
    });
    child.stderr.on('data', (c) => {
      stderr += c;
      if (!lineAt && stderr.includes('\n')) lineAt = Date.now();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(killer);
      const at = Date.now();
      resolve({
        code,
        stdout,
        stderr,
        triedToExitMs: at - (databaseAt || at),
        lineToExitMs: at - (lineAt || at),
      });
    });
  });
}

describe('a start on a full disk says so and exits', () => {
  for (const [what, withDatabase] of [
    ['a first start', false],
    ['a restart with its database', true],
  ] as const) {
    it(`${what}: one line naming the full disk and the fix, exit 1 within 2 s`, async (ctx) => {
      if ('reason' in namespace) ctx.skip(namespace.reason);
      const res = await serveOnFullDisk(withDatabase);
      expect(res.stdout).toMatch(/^free blocks: 0$/m);
      expect(res.code, res.stderr).toBe(1);
      const lines = res.stderr.trim().split('\n');
      expect(lines, res.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^makerspace-hub: cannot start: the disk of SQLite at \/.+\/hub\.sqlite is full; free space and start again$/,
      );
      expect(res.stderr).not.toMatch(/^\s+at /m);
      // From opening the database to the exit, and from the line to the exit.
      expect(res.triedToExitMs).toBeGreaterThan(0);
      expect(res.triedToExitMs).toBeLessThan(2_000);
      expect(res.lineToExitMs).toBeLessThan(2_000);
      expect(res.stdout).not.toMatch(/shown only now/);
    });
  }
});
