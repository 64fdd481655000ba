import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hubCli, runProcess, startProcess, stopAll, tempDir } from '../support/processes.js';

afterEach(stopAll);

/** A hub's environment on a fresh data dir and free ports, with `init` run for one account. */
async function initialised(email: string, extra: NodeJS.ProcessEnv = {}) {
  const env = {
    HUB_DATA_DIR: tempDir(),
    HUB_HTTP_HOST: '127.0.0.1',
    HUB_HTTP_PORT: '0',
    HUB_MQTT_PORT: '0',
    ...extra,
  };
  const init = await runProcess([hubCli, 'init', '--account', 'Fablab Test', '--email', email], env);
  expect(init.code).toBe(0);
  return { env, dataDir: env.HUB_DATA_DIR, init };
}

describe('makerspace-hub command line', () => {
  it('init prints exactly one JSON object whose token works against serve', async () => {
    const { env, dataDir, init } = await initialised('admin@fablab.example', { LOG_LEVEL: 'info' });
    const lines = init.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]);
    expect(Object.keys(created).sort()).toEqual(['accountId', 'apiKeyId', 'memberId', 'spaceId', 'token']);
    expect(init.stderr).not.toContain(created.token);
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);

    const hub = startProcess([hubCli, 'serve'], env);
    const [, port] = await hub.waitFor(/"port":(\d+)[^\n]*HTTP API listening/);
    // An account exists already, so serve creates none and prints no token.
    expect(hub.output()).not.toMatch(/shown only now/);
    const me = await fetch(`http://127.0.0.1:${port}/api/v1/user/me`, {
      headers: { authorization: `Bearer ${created.token}` },
    });
    expect(me.status).toBe(200);
    expect((await me.json()).emailAddress).toBe('admin@fablab.example');
    expect(await hub.stop('SIGTERM')).toBe(0);
    expect(hub.output()).not.toContain(created.token);
  });

  it('sign-in-link prints a one-use link for the owner, which asks for a password first', async () => {
    const { env } = await initialised('Owner@Fablab.example', {
      HUB_PUBLIC_URL: 'https://hub.fablab.example',
    });
    const made = await runProcess([hubCli, 'sign-in-link', '--member', 'owner@fablab.example'], env);
    expect(made.code).toBe(0);
    const url = made.stdout.trim();
    expect(url).toMatch(/^https:\/\/hub\.fablab\.example\/sign-in\/link#token=[A-Za-z0-9_-]+$/);
    // The secret goes to stdout only, never to the log on stderr.
    const token = url.split('#token=')[1];
    expect(made.stderr).not.toContain(token);

    const unknown = await runProcess([hubCli, 'sign-in-link', '--member', 'nobody@fablab.example'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no member nobody@fablab.example');

    const hub = startProcess([hubCli, 'serve'], env);
    const [, port] = await hub.waitFor(/"port":(\d+)[^\n]*HTTP API listening/);
    const redeem = () =>
      fetch(`http://127.0.0.1:${port}/api/v1/user/sign-in-links/redeem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://hub.fablab.example' },
        body: JSON.stringify({ token }),
      });
    const first = await redeem();
    expect(first.status).toBe(200);
    // No password yet: the page that opens the link asks for one.
    expect((await first.json()).purpose).toBe('invitation');
    expect((await redeem()).status).toBe(410);
    expect(await hub.stop('SIGTERM')).toBe(0);
  });

  it('serve on an empty database, output not a terminal (systemd): the token only in the 0600 file', async () => {
    const dataDir = tempDir();
    const env = { HUB_DATA_DIR: dataDir, HUB_HTTP_HOST: '127.0.0.1', HUB_HTTP_PORT: '0', HUB_MQTT_PORT: '0' };
    const hub = startProcess([hubCli, 'serve'], env);
    const file = join(dataDir, 'first-owner-token');
    await hub.waitFor(new RegExp(`API token: in ${file}, readable by this user only`));
    const [, port] = await hub.waitFor(
      /curl -H "Authorization: Bearer \$\(cat [^)]+\)" http:\/\/localhost:(\d+)\/api\/v1\/user\/me/,
    );
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const basic = Buffer.from(`${token}:`).toString('base64');
    const members = await fetch(`http://127.0.0.1:${port}/api/v1/members`, {
      headers: { authorization: `Basic ${basic}` },
    });
    expect(members.status).toBe(200);
    expect((await members.json())[0].id).toBe(1);
    // What systemd would keep in the journal holds no token.
    expect(hub.output()).not.toContain(token);
    expect(hub.output()).not.toMatch(/shown only now/);
    expect(await hub.stop('SIGINT')).toBe(0);
  });

  it('serve on an empty database, on a terminal: prints a working token once, and in no log line', async () => {
    const dataDir = tempDir();
    // script(1) gives the hub a pseudo-terminal as stdout, as an operator's shell does.
    const child = spawn(
      'script',
      ['-qfec', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(hubCli)} serve`, '/dev/null'],
      {
        env: {
          ...process.env,
          HUB_DATA_DIR: dataDir,
          HUB_HTTP_HOST: '127.0.0.1',
          HUB_HTTP_PORT: '0',
          HUB_MQTT_PORT: '0',
          NO_COLOR: '1',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let text = '';
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString();
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await expect
        .poll(() => /curl -H "Authorization: Bearer [0-9a-f-]{36}"/.test(text), { timeout: 15_000 })
        .toBe(true);
      const token = /shown only now\): ([0-9a-f-]{36})/.exec(text)?.[1] as string;
      expect(token).toMatch(/^[0-9a-f-]{36}$/);
      expect(readFileSync(join(dataDir, 'first-owner-token'), 'utf8').trim()).toBe(token);
      const port = /http:\/\/localhost:(\d+)\/api\/v1\/user\/me/.exec(text)?.[1];
      const me = await fetch(`http://127.0.0.1:${port}/api/v1/user/me`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(me.status).toBe(200);
      // On the terminal twice (the token line and the curl line), in no log line.
      expect(text.split(token).length - 1).toBe(2);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('tells systemd READY, WATCHDOG and STOPPING when NOTIFY_SOCKET is set', async () => {
    const bin = tempDir();
    const record = join(bin, 'record.txt');
    // A stand-in systemd-notify, first on PATH, that records what the hub sends.
    writeFileSync(join(bin, 'systemd-notify'), `#!/bin/sh\necho "$*" >> '${record}'\n`);
    chmodSync(join(bin, 'systemd-notify'), 0o755);
    const hub = startProcess([hubCli, 'serve'], {
      HUB_DATA_DIR: tempDir(),
      HUB_HTTP_HOST: '127.0.0.1',
      HUB_HTTP_PORT: '0',
      HUB_MQTT_PORT: '0',
      NOTIFY_SOCKET: '/run/systemd/notify-test',
      WATCHDOG_USEC: '200000',
      PATH: `${bin}:${process.env.PATH}`,
    });
    await hub.waitFor(/HTTP API listening/);
    const read = () => {
      try {
        return readFileSync(record, 'utf8');
      } catch {
        return '';
      }
    };
    const deadline = Date.now() + 5000;
    while (!(read().includes('READY=1') && read().includes('WATCHDOG=1')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(read()).toContain('READY=1');
    expect(read()).toContain('WATCHDOG=1');
    expect(await hub.stop('SIGTERM')).toBe(0);
    expect(read()).toContain('STOPPING=1');
  });

  it('--help names every environment variable the README lists', async () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const listed = [
      ...new Set(
        readme
          .split('\n')
          .filter((l) => /^\| `[A-Z_]+`/.test(l))
          .flatMap((l) => [...l.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])),
      ),
    ];
    expect(listed.length).toBeGreaterThan(20);
    const help = await runProcess([hubCli, '--help'], {});
    expect(help.code).toBe(0);
    expect(listed.filter((name) => !new RegExp(`\\b${name}\\b`).test(help.stdout))).toEqual([]);
  });

  it('refuses bad configuration with a clear message and exit code 2', async () => {
    const res = await runProcess([hubCli, 'serve'], { HUB_HTTP_PORT: 'eighty', HUB_DATA_DIR: tempDir() });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/HUB_HTTP_PORT/);
  });
});
