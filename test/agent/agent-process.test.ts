import { execFile, spawn } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { offlineKeyHash, offlineKeySecret } from '@makerspace/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  API_KEY,
  FakeHub,
  RESOURCE_ID,
  Teardown,
  TestBroker,
  tempDir,
  waitFor,
  writeApiKey,
} from './helpers.js';

const run = promisify(execFile);
const CLI = 'agent/dist/cli.js';
const teardown = new Teardown();
afterEach(() => teardown.closeAll());

// The test drives the built program, as systemd would; build it first (incremental, fast when fresh).
beforeAll(async () => {
  await run('npx', ['tsc', '-b', 'agent'], { timeout: 120_000 });
}, 120_000);

async function writeConfig(dir: string, hubUrl: string, extra: Record<string, unknown> = {}) {
  const apiKeyFile = await writeApiKey(dir);
  const file = join(dir, 'agent.json');
  const stateFile = join(dir, 'relay.json');
  await writeFile(
    file,
    JSON.stringify({
      hub: hubUrl,
      resourceId: RESOURCE_ID,
      apiKeyFile,
      controlType: 'door',
      pulseSeconds: 0.5,
      dataDir: join(dir, 'data'),
      hardware: { kind: 'simulated', stateFile },
      cardReader: { kind: 'simulated' },
      ...extra,
    }),
  );
  const relay = async () => {
    try {
      return JSON.parse(await readFile(stateFile, 'utf8')).relay as string;
    } catch {
      return undefined;
    }
  };
  return { file, relay };
}

/** Starts `makerspace-agent run`; the teardown kills it if the test did not stop it. */
function startAgentProcess(configFile: string, env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'run', '--config', configFile], {
    env: { ...process.env, LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  teardown.add(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, exited, output: () => output };
}

describe('makerspace-agent process', () => {
  it('runs against the hub, opens the door on a `tap`, executes commands, and stops cleanly on SIGTERM', async () => {
    const broker = await new TestBroker().start(teardown);
    const hub = await new FakeHub(broker).start(teardown);
    const dir = await tempDir(teardown);
    const { file, relay } = await writeConfig(dir, broker.url);
    const agent = startAgentProcess(file);

    const status = await hub.waitForMessage('status', (m) => m.online === true, 15_000);
    expect(status.agentVersion).toBe(JSON.parse(await readFile('agent/package.json', 'utf8')).version);
    expect(await relay()).toBe('off');

    hub.accessResponder = (req) =>
      req.keys[0].token === '0A1B2C3D4E'
        ? { type: 'allowed', sessionId: 'door-1', stopped: true, member: { id: 1, name: 'Ada' } }
        : { type: 'denied', reason: 'unknownKey' };
    const tap = await run(process.execPath, [CLI, 'tap', '--config', file, '--token', '0a1b2c3d4e']);
    const answer = JSON.parse(tap.stdout);
    expect(answer).toMatchObject({
      ok: true,
      outcome: { result: 'allowed', offline: false, action: 'pulsed' },
    });
    expect(hub.messages('access').at(-1)).toMatchObject({ keys: [{ type: 'em4102', token: '0A1B2C3D4E' }] });
    expect(await relay()).toBe('on');
    await waitFor(async () => (await relay()) === 'off', 'the door to close');

    const denied = await run(process.execPath, [
      CLI,
      'tap',
      '--config',
      file,
      '--token',
      'FFFF',
      '--type',
      'nfca',
    ]);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      ok: true,
      outcome: { result: 'denied', reason: 'unknownKey' },
    });
    await expect(
      run(process.execPath, [CLI, 'tap', '--config', file, '--token', 'xyz']),
    ).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('hex'),
    });

    await hub.publish('commands', {
      id: 'cmd-1',
      type: 'switchOn',
      sessionId: 'door-2',
      expiresAt: new Date(Date.now() + 30_000).toISOString(),
    });
    const reply = await hub.waitForMessage('replies', (m) => m.id === 'cmd-1');
    expect(reply).toMatchObject({ ok: true, state: { relay: 'on', sessionId: 'door-2' } });
    await waitFor(async () => (await relay()) === 'off', 'the door to close again');

    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    await hub.waitForMessage('status', (m) => m.online === false);
    expect(await relay()).toBe('off');
    expect(agent.output()).not.toContain('bridge-key-0123456789abcdef');
  });

  it('works offline with the saved config and delivers the offline log once the hub is back', async () => {
    const broker = await new TestBroker().start(teardown);
    const hub = await new FakeHub(broker).start(teardown);
    const dir = await tempDir(teardown);
    const { file, relay } = await writeConfig(dir, broker.url);
    const config = {
      configVersion: 4,
      name: 'Door',
      controlType: 'door' as const,
      pulseSeconds: 0.5,
      maxOfflineUsage: 0,
      offlineKeys: [offlineKeyHash({ type: 'em4102', token: '0A1B2C3D4E' }, offlineKeySecret(API_KEY))],
      offlineKeyScheme: 'hmac-sha256' as const,
      codeMode: 'static' as const,
    };
    await hub.publish('config', config, true);
    const agent = startAgentProcess(file);
    await waitFor(async () => {
      try {
        return JSON.parse(await readFile(join(dir, 'data', 'config.json'), 'utf8')).configVersion === 4;
      } catch {
        return false;
      }
    }, 'the saved config');

    await broker.down();
    const tap = await run(process.execPath, [CLI, 'tap', '--config', file, '--token', '0A1B2C3D4E']);
    expect(JSON.parse(tap.stdout)).toMatchObject({ ok: true, outcome: { result: 'allowed', offline: true } });
    expect(await relay()).toBe('on');

    hub.received.length = 0;
    await broker.up();
    const logs = await hub.waitForMessage(
      'logs',
      (m) => m.items.some((i: any) => i.offline === true),
      15_000,
    );
    const offline = logs.items.find((i: any) => i.offline === true);
    expect(offline).toMatchObject({
      kind: 'log',
      type: 'allowed',
      keys: [{ type: 'em4102', token: '0A1B2C3D4E' }],
    });
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  });

  it('tells systemd READY, WATCHDOG and STOPPING through systemd-notify', async () => {
    const broker = await new TestBroker().start(teardown);
    await new FakeHub(broker).start(teardown);
    const dir = await tempDir(teardown);
    const { file } = await writeConfig(dir, broker.url);
    // A stand-in systemd-notify first on PATH that records its arguments.
    const bin = join(dir, 'bin');
    const record = join(dir, 'notify.log');
    await run('mkdir', ['-p', bin]);
    await writeFile(join(bin, 'systemd-notify'), `#!/bin/sh\necho "$NOTIFY_SOCKET $*" >> '${record}'\n`);
    await chmod(join(bin, 'systemd-notify'), 0o755);
    const agent = startAgentProcess(file, {
      NOTIFY_SOCKET: '/run/test-notify',
      WATCHDOG_USEC: '200000',
      PATH: `${bin}:${process.env.PATH}`,
    });
    const read = async () => readFile(record, 'utf8').catch(() => '');
    await waitFor(async () => (await read()).includes('READY=1'), 'READY=1');
    await waitFor(async () => (await read()).includes('WATCHDOG=1'), 'WATCHDOG=1');
    expect(await read()).toContain('/run/test-notify READY=1 STATUS=connected to the hub');
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    expect(await read()).toContain('STOPPING=1');
  });

  it('switches the relay off and exits non-zero on an uncaught exception', async () => {
    const broker = await new TestBroker().start(teardown);
    const hub = await new FakeHub(broker).start(teardown);
    const dir = await tempDir(teardown);
    const { file, relay } = await writeConfig(dir, broker.url, { controlType: 'machine' });
    // A preloaded module that throws outside any handler when the test asks for it.
    const crash = join(dir, 'crash-on-signal.mjs');
    await writeFile(
      crash,
      "process.on('SIGUSR2', () => setImmediate(() => { throw new Error('test crash'); }));\n",
    );
    const agent = startAgentProcess(file, {}, ['--import', crash]);
    await hub.waitForMessage('status', (m) => m.online === true, 15_000);
    await hub.publish('commands', {
      id: 'on',
      type: 'switchOn',
      sessionId: 'm-1',
      expiresAt: new Date(Date.now() + 30_000).toISOString(),
    });
    await hub.waitForMessage('replies', (m) => m.id === 'on');
    expect(await relay()).toBe('on');
    agent.child.kill('SIGUSR2');
    expect(await agent.exited).toBe(1);
    expect(await relay()).toBe('off');
    expect(agent.output()).toContain('test crash');
    // The Last Will tells the hub.
    await hub.waitForMessage('status', (m) => m.online === false);
  });

  it('tap says clearly when no agent is running', async () => {
    const broker = await new TestBroker().start(teardown);
    const dir = await tempDir(teardown);
    const { file } = await writeConfig(dir, broker.url);
    await expect(
      run(process.execPath, [CLI, 'tap', '--config', file, '--token', '0A']),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no agent is listening'),
    });
  });

  it('prints every config error and exits 2', async () => {
    const dir = await tempDir(teardown);
    const { file } = await writeConfig(dir, 'http://nowhere', { resourceId: 0 });
    const agent = startAgentProcess(file);
    expect(await agent.exited).toBe(2);
    expect(agent.output()).toContain('hub: must be a URL with scheme mqtt, mqtts, ws or wss');
    expect(agent.output()).toContain('resourceId:');
    const missing = startAgentProcess(join(dir, 'nope.json'));
    expect(await missing.exited).toBe(2);
    expect(missing.output()).toContain('cannot read file');
  });
});
