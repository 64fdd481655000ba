import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemdNotifier } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A systemd-notify stand-in that appends its arguments to a file, one call per line. */
async function recorder() {
  const dir = await mkdtemp(join(tmpdir(), 'notify-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const log = join(dir, 'calls.log');
  const command = join(dir, 'systemd-notify');
  await writeFile(command, `#!/bin/sh\necho "$*" >> '${log}'\n`);
  await chmod(command, 0o755);
  const lines = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { command, lines };
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} } as never;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, check: () => Promise<boolean>, ms = 5000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('the systemd watchdog follows the health check', () => {
  it('pings while healthy, stops while the hardware or database is broken, and pings again after', async () => {
    const { command, lines } = await recorder();
    let health: true | string = true;
    const notifier = new SystemdNotifier({
      logger: quiet,
      command,
      env: { NOTIFY_SOCKET: '/run/test', WATCHDOG_USEC: '100000' }, // a ping every 50 ms
      healthy: () => health,
    });
    cleanups.push(() => notifier.stop());
    await notifier.start();
    await until('pings', async () => (await lines()).filter((l) => l === 'WATCHDOG=1').length >= 3);

    health = 'serial relay board on /dev/ttyUSB0, channel 1: disconnected';
    await until('the status line', async () => (await lines()).some((l) => l.startsWith('STATUS=unhealthy')));
    const atFailure = (await lines()).length;
    await sleep(400); // 8 intervals
    const during = (await lines()).slice(atFailure);
    expect(during.filter((l) => l === 'WATCHDOG=1').length).toBeLessThanOrEqual(1); // one already in flight
    expect(await lines()).toContain(
      'STATUS=unhealthy: serial relay board on /dev/ttyUSB0, channel 1: disconnected',
    );

    health = true;
    await until('recovery', async () => (await lines()).includes('STATUS=healthy'));
    const atRecovery = (await lines()).length;
    await until(
      'pings again',
      async () => (await lines()).slice(atRecovery).filter((l) => l === 'WATCHDOG=1').length >= 2,
    );
  });

  it('counts a check that throws or hangs as failing', async () => {
    const { command, lines } = await recorder();
    let mode: 'throw' | 'hang' = 'throw';
    const notifier = new SystemdNotifier({
      logger: quiet,
      command,
      env: { NOTIFY_SOCKET: '/run/test', WATCHDOG_USEC: '100000' },
      healthy: () => {
        if (mode === 'throw') throw new Error('database is locked');
        return new Promise<boolean>(() => {});
      },
    });
    cleanups.push(() => notifier.stop());
    await notifier.start();
    await until('the throw', async () => (await lines()).includes('STATUS=unhealthy: database is locked'));
    mode = 'hang';
    await until('the hang', async () => (await lines()).includes('STATUS=unhealthy: health check timed out'));
    expect(await lines()).not.toContain('WATCHDOG=1');
  });
});
