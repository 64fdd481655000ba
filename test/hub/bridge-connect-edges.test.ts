import { connect as connectTcp, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { bridgeClientId, createLogger } from '@makerspace/shared';
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { connectPacket } from '../support/mqtt-packets.js';

function settableClock(start = Date.parse('2026-11-23T10:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

const hubs: TestHub[] = [];
const clients: mqtt.MqttClient[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.end(true);
  for (const s of sockets.splice(0)) s.destroy();
  for (const h of hubs.splice(0)) await h.close();
});

/**
 * A hub on a clock the test sets, with its log lines kept, and its metrics on (they count only
 * when GET /metrics may read them, that is with a metrics token).
 */
async function hubWithLog(settings: Parameters<typeof startTestHub>[1]['settings'] = {}) {
  const clock = settableClock();
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const t = await startTestHub('sqlite', {
    clock,
    settings: { metricsToken: 'bridge-connect-metrics-token', ...settings },
    logger: createLogger({ name: 'test-hub', level: 'debug', destination: sink }),
  });
  hubs.push(t);
  const urls = await t.listen();
  const mqttPort = Number(new URL(urls.mqttUrl).port);
  const api = (method: string, url: string, payload?: unknown) =>
    t.call(t.owner.token, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  async function bridge(name = 'Laser') {
    const res = await api('POST', '/resources', { space: t.owner.spaceId, name });
    expect(res.statusCode).toBe(201);
    expect((await api('PUT', `/resources/${res.json().id}/bridge`, {})).statusCode).toBe(200);
    const apiKey = (await api('GET', `/resources/${res.json().id}/bridge/api-key`)).json().apiKey as string;
    return { id: res.json().id as number, apiKey };
  }
  /**
   * A real MQTT client over TCP (from `from`, a loopback address) or over WebSocket (from `from`,
   * or with an X-Forwarded-For header as a proxy would send it).
   */
  function client(
    transport: 'tcp' | 'ws',
    resourceId: number,
    key: string,
    options: { from?: string; forwardedFor?: string; reconnectPeriod?: number } = {},
  ) {
    const base: mqtt.IClientOptions = {
      clientId: bridgeClientId(resourceId),
      username: String(resourceId),
      password: key,
      protocolVersion: 4,
      keepalive: 60,
      reconnectPeriod: options.reconnectPeriod ?? 0,
      // An agent retries after a refusal too (with its back-off).
      reconnectOnConnackError: options.reconnectPeriod !== undefined,
      connectTimeout: 5_000,
    };
    const c =
      transport === 'tcp'
        ? new mqtt.MqttClient(
            () =>
              connectTcp({ host: '127.0.0.1', port: mqttPort, localAddress: options.from ?? '127.0.0.1' }),
            base,
          )
        : mqtt.connect(urls.wsUrl, {
            ...base,
            wsOptions: {
              localAddress: options.from ?? '127.0.0.1',
              headers: options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {},
            },
          });
    clients.push(c);
    return c;
  }
  const outcome = (c: mqtt.MqttClient) =>
    new Promise<'connected' | { code: number | undefined }>((resolve) => {
      c.once('connect', () => resolve('connected'));
      c.once('error', (err) => resolve({ code: (err as { code?: number }).code }));
    });
  const attempt = async (...args: Parameters<typeof client>) => {
    const c = client(...args);
    const result = await outcome(c);
    c.end(true);
    return result;
  };
  /** A connection that sends CONNECT and then nothing at all: half-open as the broker sees it. */
  function silentConnection(resourceId: number, key: string, keepalive: number) {
    const socket = connectTcp({ host: '127.0.0.1', port: mqttPort });
    sockets.push(socket);
    let closed = false;
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => {});
    const connack = new Promise<number>((resolve) => {
      socket.once('data', (data) => resolve(data[0] === 0x20 ? data[3] : -1));
      socket.once('close', () => resolve(-1));
    });
    socket.write(connectPacket(bridgeClientId(resourceId), String(resourceId), key, keepalive));
    return { connack, closed: () => closed };
  }
  const metric = async (name: string) => {
    const text = await t.hub.ctx.metrics.text();
    return Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  };
  return { t, clock, lines, api, bridge, client, outcome, attempt, silentConnection, metric, urls };
}

/** The resource statuses of the live channel's first event. */
async function liveSnapshot(httpUrl: string, token: string) {
  const controller = new AbortController();
  const res = await fetch(`${httpUrl}/api/v1/live`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  const match = await eventually(
    async () => {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
      return /event: snapshot\ndata: (.*)\n/.exec(text);
    },
    5_000,
    'the live snapshot',
  );
  controller.abort();
  return JSON.parse(match[1]).resources;
}

describe('wrong bridge keys over MQTT are throttled per source address', () => {
  it('TCP and WebSocket: after 10 wrong keys an address is refused without a key check until the minute has passed; the right key from another address connects', async () => {
    const h = await hubWithLog();
    const door = await h.bridge();
    for (const [transport, from] of [
      ['tcp', '127.0.0.2'],
      ['ws', '127.0.0.3'],
    ] as const) {
      for (let i = 0; i < 10; i++) {
        expect(await h.attempt(transport, door.id, `wrong-key-${i}`, { from })).toEqual({ code: 4 });
      }
      // Locked out: wrong and right keys alike get "server unavailable", so a guess teaches nothing.
      expect(await h.attempt(transport, door.id, 'wrong-key-10', { from })).toEqual({ code: 3 });
      expect(await h.attempt(transport, door.id, door.apiKey, { from })).toEqual({ code: 3 });
      // The bridge itself, from its own address, is not affected.
      expect(await h.attempt(transport, door.id, door.apiKey, { from: '127.0.0.1' })).toBe('connected');
      const warning = h.lines.find((l) => l.includes(`too many failed MQTT authentications from ${from}`));
      expect(warning, h.lines.join('\n')).toBeDefined();
      expect(JSON.parse(warning as string)).toMatchObject({
        level: 40,
        address: from,
        retryAfterSeconds: 60,
      });
    }
    expect(await h.metric('makerspace_bridge_connects_refused_total{reason="badKey"}')).toBe(20);
    expect(await h.metric('makerspace_bridge_connects_refused_total{reason="throttled"}')).toBe(4);
    // No key, right or wrong, in any log line.
    for (const line of h.lines) {
      expect(line).not.toContain(door.apiKey);
      expect(line).not.toMatch(/wrong-key-/);
    }
    // Once the oldest failure has left the window, the address may try again.
    h.clock.advance(59_000);
    expect(await h.attempt('tcp', door.id, door.apiKey, { from: '127.0.0.2' })).toEqual({ code: 3 });
    h.clock.advance(1_500);
    expect(await h.attempt('tcp', door.id, door.apiKey, { from: '127.0.0.2' })).toBe('connected');
    expect(await h.attempt('ws', door.id, door.apiKey, { from: '127.0.0.3' })).toBe('connected');
  });

  it('behind a trusted proxy, WebSocket clients are counted by their X-Forwarded-For address, not the proxy’s', async () => {
    const h = await hubWithLog({ trustProxy: ['loopback'] });
    const door = await h.bridge();
    for (let i = 0; i < 10; i++) {
      expect(await h.attempt('ws', door.id, `wrong-key-${i}`, { forwardedFor: '198.51.100.7' })).toEqual({
        code: 4,
      });
    }
    expect(await h.attempt('ws', door.id, door.apiKey, { forwardedFor: '198.51.100.7' })).toEqual({
      code: 3,
    });
    // Another client through the same proxy is not locked out with the guesser.
    expect(await h.attempt('ws', door.id, door.apiKey, { forwardedFor: '198.51.100.8' })).toBe('connected');
    expect(h.lines.some((l) => l.includes('too many failed MQTT authentications from 198.51.100.7'))).toBe(
      true,
    );
  });

  it("guessing one resource's key from many addresses locks that resource out, but not its own bridge's address", async () => {
    const h = await hubWithLog();
    const door = await h.bridge('Door');
    const laser = await h.bridge('Laser');
    expect(await h.attempt('tcp', door.id, door.apiKey, { from: '127.0.0.1' })).toBe('connected');
    for (let i = 1; i <= 30; i++) {
      expect(await h.attempt('tcp', door.id, `wrong-key-${i}`, { from: `127.0.1.${i}` })).toEqual({
        code: 4,
      });
    }
    expect(
      h.lines.some((l) => l.includes(`too many failed MQTT authentications for resource ${door.id}`)),
    ).toBe(true);
    // A new address is refused for this resource, whatever the key...
    expect(await h.attempt('tcp', door.id, door.apiKey, { from: '127.0.2.1' })).toEqual({ code: 3 });
    // ...but not for another resource, and the door's own Pi still gets in.
    expect(await h.attempt('tcp', laser.id, laser.apiKey, { from: '127.0.2.1' })).toBe('connected');
    expect(await h.attempt('tcp', door.id, door.apiKey, { from: '127.0.0.1' })).toBe('connected');
  });

  it('an address where bridges log in (a NAT shared with other devices) is not locked out as a whole; guesses from it are still limited per resource', async () => {
    const h = await hubWithLog();
    const door = await h.bridge('Door');
    const laser = await h.bridge('Laser');
    expect(await h.attempt('tcp', door.id, door.apiKey, { from: '127.0.0.5' })).toBe('connected');
    for (let i = 1; i <= 30; i++) {
      expect(await h.attempt('tcp', laser.id, `wrong-key-${i}`, { from: '127.0.0.5' })).toEqual({ code: 4 });
    }
    // The door's Pi behind that address still connects; the laser's key can no longer be tried there.
    expect(await h.attempt('tcp', door.id, door.apiKey, { from: '127.0.0.5' })).toBe('connected');
    expect(await h.attempt('tcp', laser.id, laser.apiKey, { from: '127.0.0.5' })).toEqual({ code: 3 });
    expect(await h.attempt('tcp', laser.id, laser.apiKey, { from: '127.0.0.6' })).toEqual({ code: 3 });
  });
});

describe('a duplicate device (the same bridge key on two devices) is visible and damped', () => {
  it('two devices kicking each other off: warned with both addresses, shown on the bridge and in a resource log, and held to the back-off', async () => {
    const h = await hubWithLog();
    const door = await h.bridge();
    let connects = 0;
    const original = h.client('tcp', door.id, door.apiKey, { from: '127.0.0.1', reconnectPeriod: 100 });
    original.on('connect', () => connects++);
    original.on('error', () => {}); // refusals (CONNACK 3) are counted by the hub's metric
    await eventually(() => connects === 1, 5_000, 'the original device connected');
    const clone = h.client('tcp', door.id, door.apiKey, { from: '127.0.0.4', reconnectPeriod: 100 });
    clone.on('connect', () => connects++);
    clone.on('error', () => {});

    const warning = await eventually(
      () => h.lines.find((l) => l.includes(`two devices use the bridge key of resource ${door.id}`)),
      15_000,
      'the duplicate warning',
    );
    expect(JSON.parse(warning)).toMatchObject({ level: 40, takeovers: 4, backoffSeconds: 30 });
    expect([JSON.parse(warning).address, JSON.parse(warning).holderAddress].sort()).toEqual([
      '127.0.0.1',
      '127.0.0.4',
    ]);
    // The fourth takeover within the minute started the back-off: no further takeover, however
    // often the other device tries (both reconnect every 100 ms), while the hub's clock stands.
    // Its CONNACK follows the warning: five connects, four of them takeovers.
    await eventually(() => connects === 5, 5_000, 'the fourth takeover connected');
    const atWarning = connects;
    await new Promise((r) => setTimeout(r, 2_000));
    expect(connects).toBe(atWarning);
    expect(
      await h.metric('makerspace_bridge_connects_refused_total{reason="takeoverDamped"}'),
    ).toBeGreaterThan(3);
    expect(await h.metric('makerspace_bridge_takeovers_total{kind="duplicate"}')).toBe(1);
    expect(original.connected || clone.connected).toBe(true);

    const record = (await h.api('GET', `/resources/${door.id}/bridge`)).json();
    expect(record.offline).toBe(false);
    expect(record.duplicateDeviceAt).toEqual(expect.any(String));
    expect([...record.duplicateDeviceAddresses].sort()).toEqual(['127.0.0.1', '127.0.0.4']);
    // The admin console's live channel carries it in the resource's status.
    const status = (await liveSnapshot(h.urls.httpUrl, h.t.owner.token)).find(
      (r: { resource: number }) => r.resource === door.id,
    );
    expect(status).toMatchObject({ online: true, duplicateDeviceAt: record.duplicateDeviceAt });
    expect([...status.duplicateDeviceAddresses].sort()).toEqual(['127.0.0.1', '127.0.0.4']);
    const logs = (await h.api('GET', `/resource-logs?resource=${door.id}&type=pairing`)).json();
    expect(logs).toHaveLength(1);
    expect(logs[0].notes).toMatch(
      /Two devices use this bridge's key \(127\.0\.0\.[14] and 127\.0\.0\.[14]\)/,
    );

    // After the back-off one takeover is let in, then the next waits twice as long.
    h.clock.advance(30_001);
    await eventually(() => connects === atWarning + 1, 5_000, 'one takeover after the back-off');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(connects).toBe(atWarning + 1);
    const second = h.lines.filter((l) => l.includes('two devices use the bridge key'));
    expect(JSON.parse(second[second.length - 1])).toMatchObject({ backoffSeconds: 60 });
    // One resource log per episode; the bridge record keeps the latest sighting.
    expect((await h.api('GET', `/resource-logs?resource=${door.id}&type=pairing`)).json()).toHaveLength(1);
    for (const line of h.lines) expect(line).not.toContain(door.apiKey);

    // A new key (pairing again) ends it: the warning is cleared from the bridge record.
    expect((await h.api('PUT', `/resources/${door.id}/bridge`, { rotateApiKey: true })).statusCode).toBe(200);
    const cleared = (await h.api('GET', `/resources/${door.id}/bridge`)).json();
    expect(cleared.duplicateDeviceAt).toBeNull();
    expect(cleared.duplicateDeviceAddresses).toEqual([]);
  });

  it('an agent that reconnects over its own half-open connection is let in at once', async () => {
    const h = await hubWithLog();
    const door = await h.bridge();
    const stale = h.silentConnection(door.id, door.apiKey, 20);
    expect(await stale.connack).toBe(0);
    await eventually(() => h.t.hub.broker.isOnline(door.id), 5_000, 'the first connection online');
    expect(await h.attempt('tcp', door.id, door.apiKey)).toBe('connected');
    await eventually(() => stale.closed(), 5_000, 'the half-open connection closed');
    expect(await h.metric('makerspace_bridge_takeovers_total{kind="reconnect"}')).toBe(1);
    expect(h.lines.some((l) => l.includes('two devices use'))).toBe(false);
  });

  it('while takeovers are damped, a connection that is dead (silent beyond its keepalive) is still taken over at once', async () => {
    const h = await hubWithLog();
    const door = await h.bridge();
    // Five connections with the key, each taking over the last while it is alive.
    const holders = [];
    for (let i = 0; i < 5; i++) {
      const c = h.silentConnection(door.id, door.apiKey, 20);
      expect(await c.connack).toBe(0);
      holders.push(c);
    }
    expect(h.lines.some((l) => l.includes('two devices use the bridge key'))).toBe(true);
    // Damped: a sixth is refused, the holder stays.
    const refused = h.silentConnection(door.id, door.apiKey, 20);
    expect(await refused.connack).toBe(3);
    expect(holders[4].closed()).toBe(false);
    // The holder has now said nothing for longer than its 20 s keepalive (and still within the
    // 30 s back-off): it is dead, and the bridge reconnecting is let in.
    h.clock.advance(21_500);
    expect(await h.attempt('tcp', door.id, door.apiKey)).toBe('connected');
    await eventually(() => holders[4].closed(), 5_000, 'the dead connection closed');
  });
});

describe("the broker stamps a bridge's rows with the hub's clock", () => {
  it("a connect writes the fake clock's time as the bridge's lastSeenAt, not the system time", async () => {
    const h = await hubWithLog();
    const { id, apiKey } = await h.bridge();
    h.clock.advance(1_234);
    expect(await h.outcome(h.client('tcp', id, apiKey))).toBe('connected');
    const row = await eventually(
      async () => {
        const r = await h.t.hub.ctx.db
          .selectFrom('bridges')
          .select(['lastSeenAt', 'updatedAt', 'offline'])
          .where('resource', '=', id)
          .executeTakeFirst();
        return r?.offline === 0 ? r : undefined;
      },
      5_000,
      'the bridge marked online',
    );
    expect(row.lastSeenAt).toBe('2026-11-23T10:00:01.234Z');
    expect(row.updatedAt).toBe('2026-11-23T10:00:01.234Z');
  });
});
