import { execFile, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, AgentConfig, Backoff, readApiKey } from '@makerspace/agent';
import { createCardReader, createRelay } from '@makerspace/hardware';
import type { BridgeConfig } from '@makerspace/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeHub,
  memoryLogger,
  RESOURCE_ID,
  Teardown,
  TestBroker,
  tempDir,
  waitFor,
  writeApiKey,
} from './helpers.js';

const run = promisify(execFile);
const teardown = new Teardown();
afterEach(() => teardown.closeAll());

beforeAll(async () => {
  await run('npx', ['tsc', '-b', 'agent'], { timeout: 120_000 });
}, 120_000);

const bridgeConfig = (pulseSeconds: number): BridgeConfig => ({
  configVersion: 1,
  name: 'Door',
  controlType: 'door',
  pulseSeconds,
  maxOfflineUsage: 600,
  offlineKeys: [],
  codeMode: 'static',
});

async function agentIn(dir: string, hubUrl: string) {
  const apiKeyFile = await writeApiKey(dir);
  const config = AgentConfig.parse({
    hub: hubUrl,
    resourceId: RESOURCE_ID,
    apiKeyFile,
    controlType: 'door',
    pulseSeconds: 4,
    dataDir: join(dir, 'data'),
    hardware: { kind: 'simulated', stateFile: join(dir, 'relay.json') },
  });
  const { logger, lines } = memoryLogger('agent');
  const agent = new Agent({
    config,
    apiKey: readApiKey(apiKeyFile),
    logger,
    relay: createRelay(config.hardware),
    cardReader: config.cardReader ? createCardReader(config.cardReader) : null,
    backoff: new Backoff({ initialMs: 50, maxMs: 200 }),
    env: {},
    hubAnswerTimeoutMs: 300,
  });
  teardown.add(() => agent.stop());
  await agent.start();
  return { agent, lines };
}

describe('the agent tells an operator what is going on', () => {
  it('says so when the broker it reached does not answer as a hub', async () => {
    const broker = await new TestBroker().start(teardown);
    const { agent, lines } = await agentIn(await tempDir(teardown), broker.url);
    await waitFor(() => agent.link.connected, 'the MQTT connection');
    await waitFor(
      () => lines().some((l) => /no makerspace hub answered/.test(String(l.msg))),
      'the warning that no hub answered',
    );
    expect(lines().some((l) => l.msg === 'connected to the hub')).toBe(false);
  });

  it('says it is connected to the hub once the hub answers, and names a pulse length the hub overrides', async () => {
    const broker = await new TestBroker().start(teardown);
    const hub = await new FakeHub(broker).start(teardown);
    await hub.publish('config', bridgeConfig(2), true);
    const { agent, lines } = await agentIn(await tempDir(teardown), broker.url);
    await waitFor(() => lines().some((l) => l.msg === 'connected to the hub'), 'the hub to answer');
    const override = lines().find((l) => /overrides the local setting/.test(String(l.msg)));
    expect(override).toMatchObject({ hub: 2, local: 4 });
    expect(override?.msg).toBe("the hub's pulseSeconds (2) overrides the local setting (4)");
    await new Promise((r) => setTimeout(r, 500));
    expect(lines().some((l) => /no makerspace hub answered/.test(String(l.msg)))).toBe(false);
    expect(agent.link.connected).toBe(true);
  });

  it('logs error codes such as ECONNREFUSED', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const { lines } = await agentIn(await tempDir(teardown), `mqtt://127.0.0.1:${port}`);
    await waitFor(() => lines().some((l) => l.code === 'ECONNREFUSED'), 'a log line with the error code');
    expect(JSON.stringify(lines())).not.toContain('[redacted]');
  });
});

describe('stopping', () => {
  for (const hubKind of ['online', 'unreachable', 'silent', 'frozen'] as const) {
    it(`makerspace-agent exits within 2 s of SIGTERM (hub ${hubKind})`, async () => {
      const dir = await tempDir(teardown);
      let url: string;
      let freeze = () => {};
      if (hubKind === 'frozen') {
        // The agent talks to the hub through a relay that, once frozen, passes nothing on and
        // keeps the connection open: a hub that hangs, or a network gone without a reset.
        const broker = await new TestBroker().start(teardown);
        const hub = await new FakeHub(broker).start(teardown);
        await hub.publish('config', bridgeConfig(1), true);
        let frozen = false;
        const sockets: Socket[] = [];
        const relay = createServer((inbound) => {
          const outbound = connect(broker.port, '127.0.0.1');
          sockets.push(inbound, outbound);
          inbound.on('data', (d) => frozen || outbound.write(d));
          outbound.on('data', (d) => frozen || inbound.write(d));
          inbound.on('error', () => {});
          outbound.on('error', () => {});
        });
        await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
        teardown.add(
          () =>
            new Promise<void>((r) => {
              for (const socket of sockets) socket.destroy();
              relay.close(() => r());
            }),
        );
        freeze = () => {
          frozen = true;
        };
        url = `mqtt://127.0.0.1:${(relay.address() as { port: number }).port}`;
      } else if (hubKind === 'online') {
        const broker = await new TestBroker().start(teardown);
        const hub = await new FakeHub(broker).start(teardown);
        await hub.publish('config', bridgeConfig(1), true);
        url = broker.url;
      } else if (hubKind === 'silent') {
        // Accepts TCP and never answers CONNECT: the agent is in the middle of connecting.
        const sockets: Socket[] = [];
        const silent = createServer((socket) => {
          sockets.push(socket);
        });
        await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
        teardown.add(
          () =>
            new Promise<void>((r) => {
              for (const socket of sockets) socket.destroy();
              silent.close(() => r());
            }),
        );
        url = `mqtt://127.0.0.1:${(silent.address() as { port: number }).port}`;
      } else {
        url = 'mqtt://127.0.0.1:9';
      }
      const apiKeyFile = await writeApiKey(dir);
      const file = join(dir, 'agent.json');
      await writeFile(
        file,
        JSON.stringify({
          hub: url,
          resourceId: RESOURCE_ID,
          apiKeyFile,
          controlType: 'door',
          dataDir: join(dir, 'data'),
          hardware: { kind: 'simulated', stateFile: join(dir, 'relay.json') },
          cardReader: { kind: 'simulated' },
        }),
      );
      const child = spawn(process.execPath, ['agent/dist/cli.js', 'run', '--config', file], {
        env: { ...process.env, LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stderr.on('data', (c) => {
        output += c;
      });
      child.stdout.on('data', (c) => {
        output += c;
      });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      teardown.add(async () => {
        if (child.exitCode === null) child.kill('SIGKILL');
        await exited;
      });
      await waitFor(
        () =>
          hubKind === 'online' || hubKind === 'frozen'
            ? output.includes('connected to the hub')
            : hubKind === 'silent'
              ? output.includes('agent started')
              : output.includes('hub link error'),
        'the agent to be running',
      );
      freeze();
      const started = Date.now();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(2_000);
    });
  }
});
