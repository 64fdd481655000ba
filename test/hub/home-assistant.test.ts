import { createServer, type Server } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@makerspace/shared';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HomeAssistantLink } from '../../hub/src/home-assistant/home-assistant.js';
import type { HomeAssistantSettings } from '../../hub/src/home-assistant/ha.settings.js';
import { settingsFromEnv } from '../../hub/src/settings.js';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** The operator's own broker: aedes on 127.0.0.1, port 0, with everything it received. */
async function operatorsBroker() {
  const aedes = await Aedes.createBroker();
  const server: Server = createServer(aedes.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Home Assistant's side: subscribes to everything and keeps the last (retained) message per topic. */
async function homeAssistant(url: string) {
  const client: MqttClient = await mqtt.connectAsync(url, { clientId: 'home-assistant', reconnectPeriod: 0 });
  const last = new Map<string, string>();
  const all: Array<[string, string]> = [];
  client.on('message', (topic, payload) => {
    last.set(topic, payload.toString());
    all.push([topic, payload.toString()]);
  });
  await client.subscribeAsync(['homeassistant/#', 'makerspace/#'], { qos: 1 });
  return {
    client,
    last,
    all,
    send: (topic: string, payload: string) => client.publishAsync(topic, payload, { qos: 1 }),
  };
}

describe('Home Assistant discovery on the operator broker', () => {
  let t: TestHub;
  let broker: Awaited<ReturnType<typeof operatorsBroker>>;
  let hubMqtt: string;
  let ha: Awaited<ReturnType<typeof homeAssistant>>;
  const teardown: Array<() => Promise<unknown>> = [];
  let door: { id: number };
  let printer: { id: number };
  let doorAgent: FakeAgent;
  let printerAgent: FakeAgent;

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as 'POST',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  async function resourceWithAgent(name: string, controlType: string) {
    const owner = t.owner.token;
    const resource = (
      await api(owner, 'POST', '/resources', { space: t.owner.spaceId, name, controlType, pulseSeconds: 2 })
    ).json();
    expect((await api(owner, 'PUT', `/resources/${resource.id}/bridge`, {})).statusCode).toBe(200);
    const key = (await api(owner, 'GET', `/resources/${resource.id}/bridge/api-key`)).json().apiKey;
    const agent = await connectFakeAgent(hubMqtt, resource.id, key);
    await eventually(() => t.hub.ctx.bridges.isOnline(resource.id), 5_000, 'bridge online');
    return { resource, agent };
  }

  async function memberToken(withAccess: boolean): Promise<string> {
    const owner = t.owner.token;
    const member = (
      await api(owner, 'POST', '/members', {
        firstName: withAccess ? 'Allowed' : 'Without',
        lastName: 'Member',
        emailAddress: `${withAccess ? 'allowed' : 'without'}@test.example`,
      })
    ).json();
    if (withAccess) {
      const pkg = (await api(owner, 'POST', '/packages', { name: 'Everything' })).json().id;
      await api(owner, 'POST', `/packages/${pkg}/permissions`, { type: 'everything' });
      await api(owner, 'POST', `/members/${member.id}/packages`, { package: pkg });
    }
    const key = (await api(owner, 'POST', '/api-keys', { member: member.id })).json();
    const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token as string;
    tokens.push(token);
    return token;
  }

  function link(token: string): HomeAssistantLink {
    const settings: HomeAssistantSettings = {
      mqttUrl: broker.url,
      token,
      discoveryPrefix: 'homeassistant',
      base: 'makerspace',
      resyncMs: 500,
    };
    const ha = new HomeAssistantLink(
      t.hub.ctx,
      (path, token, payload) =>
        t.app.inject({
          method: 'POST',
          url: `/api/v1${path}`,
          headers: { authorization: `Bearer ${token}` },
          payload,
        }),
      settings,
    );
    ha.start();
    teardown.push(() => ha.stop());
    return ha;
  }

  const logLines: string[] = [];
  const tokens: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    t = await startTestHub('sqlite', {
      logger: createLogger({ name: 'test-hub', level: 'debug', destination }),
    });
    tokens.push(t.owner.token);
    hubMqtt = (await t.listen()).mqttUrl;
    broker = await operatorsBroker();
    ({ resource: door, agent: doorAgent } = await resourceWithAgent('Front door', 'door'));
    ({ resource: printer, agent: printerAgent } = await resourceWithAgent('Laser cutter', 'machine'));
  });
  afterEach(async () => {
    for (const close of teardown.splice(0).reverse()) await close();
    await ha?.client.endAsync();
    // Retained messages of one test must not answer the next one's questions.
    const cleaner = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    for (const [topic] of ha?.last ?? []) await cleaner.publishAsync(topic, '', { retain: true, qos: 1 });
    await cleaner.endAsync();
  });
  afterAll(async () => {
    await doorAgent?.close();
    await printerAgent?.close();
    await broker?.close();
    await t?.close();
  });

  it('announces doors as locks and machines as switches, with state and availability, retained', async () => {
    link(t.owner.token);
    ha = await homeAssistant(broker.url);
    const lockTopic = `homeassistant/lock/makerspace/resource_${door.id}/config`;
    const switchTopic = `homeassistant/switch/makerspace/resource_${printer.id}/config`;
    await eventually(
      () => ha.last.has(lockTopic) && ha.last.has(`makerspace/resource/${printer.id}/state`),
      5_000,
      'discovery configs and states',
    );
    const lock = JSON.parse(ha.last.get(lockTopic)!);
    expect(lock).toMatchObject({
      unique_id: `makerspace_resource_${door.id}`,
      command_topic: `makerspace/resource/${door.id}/set`,
      state_topic: `makerspace/resource/${door.id}/state`,
      payload_unlock: 'UNLOCK',
      state_locked: 'LOCKED',
      availability_mode: 'all',
      device: { name: 'Front door', model: 'Door' },
    });
    expect(lock.availability).toEqual([
      { topic: 'makerspace/hub/status', payload_available: 'online', payload_not_available: 'offline' },
      {
        topic: `makerspace/resource/${door.id}/availability`,
        payload_available: 'online',
        payload_not_available: 'offline',
      },
    ]);
    expect(JSON.parse(ha.last.get(switchTopic)!)).toMatchObject({
      payload_on: 'ON',
      device: { name: 'Laser cutter' },
    });
    // Home Assistant connected after the publications: it got them because they are retained.
    expect(ha.last.get('makerspace/hub/status')).toBe('online');
    expect(ha.last.get(`makerspace/resource/${door.id}/state`)).toBe('LOCKED');
    expect(ha.last.get(`makerspace/resource/${printer.id}/state`)).toBe('OFF');
    expect(ha.last.get(`makerspace/resource/${door.id}/availability`)).toBe('online');
  });

  it('switches a machine on and off from Home Assistant, as the member, and the state follows the bridge', async () => {
    link(t.owner.token);
    ha = await homeAssistant(broker.url);
    const state = `makerspace/resource/${printer.id}/state`;
    await eventually(() => ha.last.get(state) === 'OFF', 5_000, 'state OFF');
    // Home Assistant asks: the hub's switch-on path sends the bridge its command.
    const before = printerAgent.commands.length;
    await ha.send(`makerspace/resource/${printer.id}/set`, 'ON');
    await eventually(() => printerAgent.commands.length > before, 5_000, 'switch-on command at the bridge');
    expect(printerAgent.commands.at(-1)).toMatchObject({ type: 'switchOn' });
    await printerAgent.publish('state', {
      relay: 'on',
      since: new Date().toISOString(),
      sessionId: null,
    } as never);
    await eventually(() => ha.last.get(state) === 'ON', 5_000, 'state ON');
    const logs = (await api(t.owner.token, 'GET', `/resource-logs?resource=${printer.id}`)).json();
    expect(logs[0]).toMatchObject({ type: 'allowed', member: t.owner.memberId });
    await ha.send(`makerspace/resource/${printer.id}/set`, 'OFF');
    await eventually(() => printerAgent.commands.at(-1)?.type === 'switchOff', 5_000, 'switch-off command');
    await printerAgent.publish('state', {
      relay: 'off',
      since: new Date().toISOString(),
      sessionId: null,
    } as never);
    await eventually(() => ha.last.get(state) === 'OFF', 5_000, 'state OFF again');
  });

  it('refuses an unlock for a member without access, and ignores bad payloads', async () => {
    const token = await memberToken(false);
    link(token);
    ha = await homeAssistant(broker.url);
    // The member sees only resources visible to members (all are, by default).
    await eventually(
      () => ha.last.get(`makerspace/resource/${door.id}/state`) === 'LOCKED',
      5_000,
      'door announced',
    );
    const before = doorAgent.commands.length;
    await ha.send(`makerspace/resource/${door.id}/set`, 'UNLOCK');
    await ha.send(`makerspace/resource/${door.id}/set`, 'open sesame');
    await ha.send('makerspace/resource/99999/set', 'UNLOCK');
    const denied = await eventually(
      async () => {
        const logs = (await api(t.owner.token, 'GET', `/resource-logs?resource=${door.id}`)).json();
        return logs.find((l: { type: string; reason: string | null }) => l.type === 'denied');
      },
      5_000,
      'a denied log',
    );
    expect(denied.reason).toBe('noPackage');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(doorAgent.commands.length).toBe(before);
  });

  it('unlocks a door for a member with access', async () => {
    link(await memberToken(true));
    ha = await homeAssistant(broker.url);
    await eventually(() => ha.last.has(`makerspace/resource/${door.id}/state`), 5_000, 'door announced');
    const before = doorAgent.commands.length;
    await ha.send(`makerspace/resource/${door.id}/set`, 'UNLOCK');
    await eventually(() => doorAgent.commands.length > before, 5_000, 'unlock at the bridge');
    // A door's switch-on is a pulse of its relay.
    expect(doorAgent.commands.at(-1)).toMatchObject({ type: 'pulse' });
  });

  it('marks a resource unavailable when its bridge goes offline, and the hub offline when it stops', async () => {
    const { resource, agent } = await resourceWithAgent('Lathe', 'machine');
    const ha2 = link(t.owner.token);
    ha = await homeAssistant(broker.url);
    const availability = `makerspace/resource/${resource.id}/availability`;
    await eventually(() => ha.last.get(availability) === 'online', 5_000, 'lathe online');
    await agent.close();
    await eventually(() => ha.last.get(availability) === 'offline', 10_000, 'lathe offline');
    await ha2.stop();
    await eventually(() => ha.last.get('makerspace/hub/status') === 'offline', 5_000, 'hub offline');
  });

  it('logged the commands, refusals included, and never a token', () => {
    const text = logLines.join('');
    expect(text).toContain('Home Assistant: command done');
    expect(text).toContain('Home Assistant: command refused');
    expect(text).toContain('Home Assistant: command ignored');
    for (const token of tokens) expect(text).not.toContain(token);
  });

  it('reads its settings from the environment; the token file is read, never shown', async () => {
    expect(settingsFromEnv({}).homeAssistant).toBeUndefined();
    expect(
      settingsFromEnv({ HUB_HA_MQTT_URL: 'mqtt://ha.local:1883', HUB_HA_TOKEN: 'secret-token-1' })
        .homeAssistant,
    ).toEqual({
      mqttUrl: 'mqtt://ha.local:1883',
      token: 'secret-token-1',
      discoveryPrefix: 'homeassistant',
      base: 'makerspace',
    });
    let message = '';
    try {
      settingsFromEnv({
        HUB_HA_MQTT_URL: 'http://ha.local',
        HUB_HA_TOKEN: 'secret-token-1',
        HUB_HA_TOPIC_PREFIX: 'a/#',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/HUB_HA_MQTT_URL: expected mqtt:\/\//);
    expect(message).toMatch(/HUB_HA_TOPIC_PREFIX/);
    expect(message).not.toContain('secret-token-1');
    expect(() => settingsFromEnv({ HUB_HA_MQTT_URL: 'mqtt://ha.local' })).toThrow(/HUB_HA_TOKEN: required/);
    expect(() =>
      settingsFromEnv({ HUB_HA_MQTT_URL: 'mqtt://ha.local', HUB_HA_TOKEN_FILE: '/nonexistent/ha-token' }),
    ).toThrow(/cannot read \/nonexistent\/ha-token \(ENOENT\)/);
  });
});

describe('Home Assistant link started by the hub (HUB_HA_MQTT_URL set)', () => {
  it('says the hub is online, announces nothing for an invalid token, and says offline when the hub stops', async () => {
    const broker = await operatorsBroker();
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const t = await startTestHub('sqlite', {
      logger: createLogger({ name: 'test-hub', level: 'debug', destination }),
      settings: {
        homeAssistant: {
          mqttUrl: broker.url,
          token: 'not-a-valid-token',
          discoveryPrefix: 'homeassistant',
          base: 'makerspace',
        },
      },
    });
    try {
      const ha = await homeAssistant(broker.url);
      await eventually(() => ha.last.get('makerspace/hub/status') === 'online', 5_000, 'hub online');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([...ha.last.keys()].filter((topic) => topic.startsWith('homeassistant/'))).toEqual([]);
      await eventually(() => lines.some((line) => line.includes('HUB_HA_TOKEN) is not valid')), 5_000, 'log');
      expect(lines.join('')).not.toContain('not-a-valid-token');
      await t.close();
      await eventually(() => ha.last.get('makerspace/hub/status') === 'offline', 5_000, 'hub offline');
      await ha.client.endAsync();
    } finally {
      await t.close().catch(() => {});
      await broker.close();
    }
  });

  it('starts and stops promptly while the operator broker is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const t = await startTestHub('sqlite', {
      settings: {
        homeAssistant: {
          mqttUrl: `mqtt://127.0.0.1:${port}`,
          token: 'not-a-valid-token',
          discoveryPrefix: 'homeassistant',
          base: 'makerspace',
        },
      },
    });
    expect((await t.call(t.owner.token, { method: 'GET', url: '/api/v1/user/me' })).statusCode).toBe(200);
    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
