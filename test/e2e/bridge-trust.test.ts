import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sendTap, tapSocketPath } from '@makerspace/agent';
import { bridgeClientId, bridgeTopic, offlineKeyHash, offlineKeySecret } from '@makerspace/shared';
import mqtt from 'mqtt';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type AgentProcess, type HubProcess, startAgentProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { stopAll } from '../support/processes.js';

/**
 * Bridge trust with real processes (issue 14): kill -9 of the agent at the pulse, SIGKILL of the
 * hub between command and reply, a stalled hub, and presence across hub stops.
 */

const card = { type: 'em4102', token: '0A1B2C3D4E' } as const;

async function setUp(controlType: 'door' | 'machine') {
  const hub = await startHubProcess();
  const me = (await hub.api('GET', '/user/me')).body;
  const resource = (
    await hub.api('POST', '/resources', {
      space: me.space,
      name: controlType === 'door' ? 'Front door' : 'Laser',
      controlType,
      pulseSeconds: 1,
      maxOfflineUsage: 600,
    })
  ).body;
  expect((await hub.api('PUT', `/resources/${resource.id}/bridge`, {})).status).toBe(200);
  const apiKey = (await hub.api('GET', `/resources/${resource.id}/bridge/api-key`)).body.apiKey as string;
  const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body;
  expect((await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' })).status).toBe(201);
  const member = (await hub.api('POST', '/members', { firstName: 'Ada', emailAddress: 'ada@e2e.example' }))
    .body;
  expect((await hub.api('POST', `/members/${member.id}/packages`, { package: pkg.id })).status).toBe(201);
  expect((await hub.api('PUT', `/members/${member.id}/key`, card)).status).toBe(200);
  return { hub, resource, apiKey, member };
}

const restart = (hub: HubProcess) =>
  startHubProcess({ dataDir: hub.dataDir, httpPort: hub.httpPort, mqttPort: hub.mqttPort, token: hub.token });

async function logsOf(hub: HubProcess, resourceId: number): Promise<any[]> {
  return (await hub.api('GET', `/resource-logs?resource=${resourceId}&limit=1000`)).body;
}

/** Waits until the agent has saved a config listing the card (keyed with its bridge's secret). */
async function cardInSavedConfig(agent: AgentProcess, apiKey: string) {
  const saved = join(agent.dir, 'data', 'config.json');
  const hash = offlineKeyHash(card, offlineKeySecret(apiKey));
  await eventually(
    () => existsSync(saved) && JSON.parse(readFileSync(saved, 'utf8')).offlineKeys.includes(hash),
    10_000,
    'the card in the saved config',
  );
}

describe('bridge trust with real processes', () => {
  afterEach(stopAll);
  afterAll(stopAll);

  it('journals every offline decision before the pulse: kill -9 at the pulse, 40 times, every pulse has its log', async () => {
    const { hub, resource, apiKey } = await setUp('door');
    const hubUrl = `mqtt://127.0.0.1:${hub.mqttPort}`;
    let agent = await startAgentProcess({ hubUrl, resourceId: resource.id, apiKey, controlType: 'door' });
    await cardInSavedConfig(agent, apiKey);
    const dir = agent.dir;
    expect(await hub.proc.stop('SIGTERM')).toBe(0);
    await agent.proc.stop('SIGTERM');

    let pulses = 0;
    for (let i = 0; i < 40; i++) {
      agent = await startAgentProcess({
        hubUrl,
        resourceId: resource.id,
        apiKey,
        controlType: 'door',
        dir,
        waitFor: 'started',
      });
      expect(agent.relay()).toBe('off');
      // Straight to the tap socket (no `tap` process): the kill must meet the pulse, not a start-up.
      void sendTap(tapSocketPath(join(dir, 'data')), { type: card.type, token: card.token }).catch(() => {});
      // Kill the moment the relay file says "on" (or give up after a while: no pulse this time).
      const deadline = Date.now() + 5_000;
      let on = false;
      while (Date.now() < deadline) {
        try {
          if (agent.relay() === 'on') {
            on = true;
            break;
          }
        } catch {
          // The file is being replaced; read again.
        }
        await new Promise((r) => setImmediate(r));
      }
      agent.proc.child.kill('SIGKILL');
      await agent.proc.stop('SIGKILL');
      if (on) pulses++;
    }
    expect(pulses).toBeGreaterThan(30);

    const back = await restart(hub);
    agent = await startAgentProcess({ hubUrl, resourceId: resource.id, apiKey, controlType: 'door', dir });
    await eventually(
      async () =>
        (await logsOf(back, resource.id)).filter((l) => l.offline && l.type === 'allowed').length >= pulses,
      20_000,
      'a log for every pulse',
    );
  }, 180_000);

  it('reconciles a switch-on whose hub was killed between command and reply', async () => {
    const setup = await setUp('machine');
    let hub = setup.hub;
    const { resource, apiKey } = setup;
    const agent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: resource.id,
      apiKey,
      controlType: 'machine',
    });
    await eventually(
      async () => (await hub.api('GET', `/resources/${resource.id}/bridge`)).body.offline === false,
    );

    for (let i = 0; i < 6; i++) {
      const request = hub
        .api('POST', `/resources/${resource.id}/switch-on`, { code: resource.switchOnCode })
        .catch(() => null);
      await new Promise((r) => setTimeout(r, (i * 7) % 40));
      hub.proc.child.kill('SIGKILL');
      await hub.proc.stop('SIGKILL');
      await request;
      hub = await restart(hub);
      // Whatever the moment of the kill: the log and the relay agree once the bridge is back.
      const agreed = await eventually(
        async () => {
          const logs = await logsOf(hub, resource.id);
          const open = logs.filter((l) => l.type === 'allowed' && l.stoppedAt === null);
          const relay = agent.relay();
          if (relay === 'on') return open.length === 1 ? { relay, open } : null;
          return open.length === 0 ? { relay, open } : null;
        },
        20_000,
        'the log and the relay agree',
      );
      // Keep the relay and the hub in agreement a moment later too (nothing flips back).
      await new Promise((r) => setTimeout(r, 300));
      const again = (await logsOf(hub, resource.id)).filter(
        (l) => l.type === 'allowed' && l.stoppedAt === null,
      );
      expect(again.length).toBe(agreed.open.length);
      expect(agent.relay()).toBe(agreed.relay);
      if (agreed.relay === 'on') {
        // The agent may still be reconnecting to the restarted hub: switch off once it is online.
        await eventually(
          async () => (await hub.api('GET', `/resources/${resource.id}/bridge`)).body.offline === false,
          10_000,
          'the bridge online again',
        );
        const off = await hub.api('POST', `/resources/${resource.id}/bridge/switch-off`, {});
        expect(off.status).toBe(201);
      }
      await eventually(() => agent.relay() === 'off', 5_000, 'relay off');
    }
  }, 240_000);

  it('writes one log per tap when the hub stalls longer than the access timeout', async () => {
    const { hub, resource, apiKey, member } = await setUp('door');
    const agent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: resource.id,
      apiKey,
      controlType: 'door',
      keepaliveSeconds: 30,
    });
    await cardInSavedConfig(agent, apiKey);
    const mine = async () => (await logsOf(hub, resource.id)).filter((l) => l.member === member.id);

    expect((await agent.tap(card.token)).code).toBe(0);
    await eventually(async () => (await mine()).length === 1, 5_000, 'the first log');

    for (let i = 0; i < 2; i++) {
      hub.proc.child.kill('SIGSTOP');
      // The agent waits 3 s for the hub, then decides offline (and pulses).
      const tap = await agent.tap(card.token);
      expect(tap.code).toBe(0);
      expect(tap.stdout).toMatch(/offline/);
      await new Promise((r) => setTimeout(r, 500));
      hub.proc.child.kill('SIGCONT');
      await eventually(async () => (await mine()).length >= 2 + i, 10_000, 'the stalled tap logged');
    }
    // The hub has answered the stalled requests and received the agent's offline logs by now.
    await new Promise((r) => setTimeout(r, 2_000));
    const logs = await mine();
    expect(logs).toHaveLength(3);
    expect(logs.filter((l) => l.offline)).toHaveLength(2);
  }, 60_000);

  it('keeps correct online flags across SIGTERM and SIGKILL of the hub with 50 bridges', async () => {
    let hub = await startHubProcess();
    const me = (await hub.api('GET', '/user/me')).body;
    const bridges: { id: number; apiKey: string }[] = [];
    for (let i = 0; i < 50; i++) {
      const r = (await hub.api('POST', '/resources', { space: me.space, name: `Machine ${i}` })).body;
      expect((await hub.api('PUT', `/resources/${r.id}/bridge`, {})).status).toBe(200);
      bridges.push({
        id: r.id,
        apiKey: (await hub.api('GET', `/resources/${r.id}/bridge/api-key`)).body.apiKey,
      });
    }
    const clients: mqtt.MqttClient[] = [];
    const connectAll = async (which: typeof bridges) => {
      await Promise.all(
        which.map(async (b) => {
          const client = mqtt.connect(`mqtt://127.0.0.1:${hub.mqttPort}`, {
            clientId: bridgeClientId(b.id),
            username: String(b.id),
            password: b.apiKey,
            reconnectPeriod: 0,
            keepalive: 30,
          });
          clients.push(client);
          await new Promise((resolve, reject) => {
            client.once('connect', resolve);
            client.once('error', reject);
          });
          await client.publishAsync(
            bridgeTopic(b.id, 'status'),
            JSON.stringify({
              online: true,
              agentVersion: 't',
              hardware: 't',
              startedAt: new Date().toISOString(),
            }),
            { qos: 1, retain: true },
          );
        }),
      );
    };
    const flags = async () => {
      const rows = (await hub.api('GET', '/resources?embed=bridge&limit=1000')).body;
      return new Map<number, boolean>(rows.map((r: any) => [r.id, r._embedded.bridge.offline]));
    };
    const online = async () =>
      [...(await flags()).entries()].filter(([, offline]) => !offline).map(([id]) => id);

    try {
      await connectAll(bridges);
      await eventually(async () => (await online()).length === 50, 10_000, 'all 50 online');

      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        await hub.proc.stop(signal);
        hub = await restart(hub);
        // No bridge has come back yet: none may read online.
        expect(await online()).toEqual([]);
        const half = bridges.slice(0, 25);
        await connectAll(half);
        await eventually(async () => (await online()).length === 25, 10_000, 'the 25 reconnected online');
        expect((await online()).sort((a, b) => a - b)).toEqual(half.map((b) => b.id).sort((a, b) => a - b));
        await connectAll(bridges.slice(25));
        await eventually(async () => (await online()).length === 50, 10_000, 'all 50 online again');
      }
    } finally {
      for (const c of clients) c.end(true);
    }
  }, 120_000);
});
