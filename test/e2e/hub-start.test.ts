import { spawn } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstOwnerToken } from '../support/e2e.js';
import { hubCli, runProcess, startProcess, stopAll, tempDir } from '../support/processes.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  await stopAll();
});

/** A port something else listens on (127.0.0.1). */
async function takenPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Runs `serve` until it exits; times how long it took from its failure line to its exit. */
function failingServe(env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; exitAfterLineMs: number }>(
    (resolve) => {
      const child = spawn(process.execPath, [hubCli, 'serve'], {
        env: { ...process.env, HUB_HTTP_HOST: '127.0.0.1', HUB_MQTT_PORT: '0', LOG_LEVEL: 'silent', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let lineAt = 0;
      child.stdout.on('data', (c) => {
        stdout += c;
      });
      child.stderr.on('data', (c) => {
        stderr += c;
        if (!lineAt && stderr.includes('\n')) lineAt = Date.now();
      });
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', (code) => {
        clearTimeout(killer);
        resolve({ code, stdout, stderr, exitAfterLineMs: Date.now() - (lineAt || Date.now()) });
      });
    },
  );
}

function expectOneLine(stderr: string, ...patterns: RegExp[]) {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^makerspace-hub: /);
  expect(stderr).not.toMatch(/^\s+at /m);
  for (const p of patterns) expect(lines[0]).toMatch(p);
}

describe('a start that fails says why and exits', () => {
  it('HTTP port in use: one line with the fix, exit 1 at once, and no first account made', async () => {
    const dataDir = tempDir();
    const port = await takenPort();
    const res = await failingServe({ HUB_DATA_DIR: dataDir, HUB_HTTP_PORT: String(port) });
    expect(res.code).toBe(1);
    expectOneLine(res.stderr, new RegExp(`port ${port} is in use`), /HUB_HTTP_PORT/);
    expect(res.exitAfterLineMs).toBeLessThan(2_000);
    expect(res.stdout).not.toMatch(/shown only now/);
    // Started on a free port afterwards, the hub makes its first account then.
    const hub = startProcess([hubCli, 'serve'], {
      HUB_DATA_DIR: dataDir,
      HUB_HTTP_HOST: '127.0.0.1',
      HUB_HTTP_PORT: '0',
      HUB_MQTT_PORT: '0',
    });
    const token = await firstOwnerToken(hub, dataDir);
    const file = join(dataDir, 'first-owner-token');
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(hub.output()).toMatch(new RegExp(`database: SQLite at ${dataDir}/hub\\.sqlite`));
    // Not a terminal (as under systemd): the token is in the file only, in no output line.
    expect(
      hub
        .output()
        .split('\n')
        .filter((l) => l.includes(token)),
    ).toEqual([]);
    expect(await hub.stop('SIGTERM')).toBe(0);
  });

  for (const url of ['mysql://hub@127.0.0.1/hub', 'postgress://hub@127.0.0.1/hub', 'postgres:hub']) {
    it(`DATABASE_URL=${url} is refused, not taken for a file name`, async () => {
      const dataDir = tempDir();
      const res = await failingServe({ HUB_DATA_DIR: dataDir, HUB_HTTP_PORT: '0', DATABASE_URL: url });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/DATABASE_URL/);
      expect(res.stderr).toMatch(/postgres:\/\//);
      expect(res.stderr).not.toMatch(/^\s+at /m);
    });
  }

  it('an unreachable PostgreSQL: one line that names it without the password', async () => {
    const port = await closedPort();
    const res = await failingServe({
      HUB_DATA_DIR: tempDir(),
      HUB_HTTP_PORT: '0',
      DATABASE_URL: `postgres://hub:s3cret-pw@127.0.0.1:${port}/hubdb`,
    });
    expect(res.code).toBe(1);
    expectOneLine(
      res.stderr,
      new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${port}/hubdb as hub is unreachable`),
      /DATABASE_URL/,
    );
    expect(res.stderr + res.stdout).not.toContain('s3cret-pw');
    expect(res.exitAfterLineMs).toBeLessThan(2_000);
  });

  it('a file that is not a SQLite database: one line, exit 1', async () => {
    const dataDir = tempDir();
    writeFileSync(
      join(dataDir, 'hub.sqlite'),
      'this is not a database, just text that is long enough '.repeat(20),
    );
    const res = await failingServe({ HUB_DATA_DIR: dataDir, HUB_HTTP_PORT: '0' });
    expect(res.code).toBe(1);
    expectOneLine(res.stderr, /not a usable SQLite database/);
    expect(existsSync(join(dataDir, 'first-owner-token'))).toBe(false);
  });

  it('a secret key other than the database was written with: one line naming HUB_SECRET_FILE, exit 2', async () => {
    const dataDir = tempDir();
    const env = { HUB_DATA_DIR: dataDir, HUB_HTTP_HOST: '127.0.0.1', HUB_HTTP_PORT: '0', HUB_MQTT_PORT: '0' };
    const first = startProcess([hubCli, 'serve'], env);
    const token = await firstOwnerToken(first, dataDir);
    expect(await first.stop('SIGTERM')).toBe(0);

    // A second hub on the same data dir, as a cluster node or a reinstall given another key file.
    const otherKey = join(tempDir(), 'secret.key');
    const res = await failingServe({ HUB_DATA_DIR: dataDir, HUB_HTTP_PORT: '0', HUB_SECRET_FILE: otherKey });
    expect(res.code).toBe(2);
    expectOneLine(
      res.stderr,
      new RegExp(`HUB_SECRET_FILE \\(${otherKey}\\) is not the secret key this database was written with`),
    );
    expect(res.exitAfterLineMs).toBeLessThan(2_000);

    // With the database's own key it starts and serves, the token as before.
    const again = startProcess([hubCli, 'serve'], env);
    const [, port] = await again.waitFor(/"port":(\d+)[^\n]*HTTP API listening/);
    const me = await fetch(`http://127.0.0.1:${port}/api/v1/user/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.status).toBe(200);
    expect(await again.stop('SIGTERM')).toBe(0);
  });
});

describe('recovery', () => {
  it('token create --member EMAIL issues a working token for an existing member', async () => {
    const dataDir = tempDir();
    const env = { HUB_DATA_DIR: dataDir, HUB_HTTP_HOST: '127.0.0.1', HUB_HTTP_PORT: '0', HUB_MQTT_PORT: '0' };
    const init = await runProcess([hubCli, 'init', '--account', 'Lab', '--email', 'Admin@Lab.example'], env);
    expect(init.code).toBe(0);
    const made = await runProcess([hubCli, 'token', 'create', '--member', 'admin@lab.example'], env);
    expect(made.code, made.stderr).toBe(0);
    const created = JSON.parse(made.stdout);
    expect(created.memberId).toBe(JSON.parse(init.stdout).memberId);
    expect(made.stderr).not.toContain(created.token);
    const unknown = await runProcess([hubCli, 'token', 'create', '--member', 'nobody@lab.example'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no member nobody@lab\.example/);

    const hub = startProcess([hubCli, 'serve'], env);
    const [, port] = await hub.waitFor(/"port":(\d+)[^\n]*HTTP API listening/);
    const me = await fetch(`http://127.0.0.1:${port}/api/v1/user/me`, {
      headers: { authorization: `Bearer ${created.token}` },
    });
    expect(me.status).toBe(200);
    expect((await me.json()).id).toBe(created.memberId);
    expect(await hub.stop('SIGTERM')).toBe(0);
  });
});
