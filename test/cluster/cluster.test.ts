import { createServer, type Server } from 'node:http';
import mqtt from 'mqtt';
import { expect, it } from 'vitest';
import { type AgentProcess, type HubProcess, startAgentProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { bridgeOnline, describeCluster, useCluster } from './support.js';

/**
 * Three hub processes on one PostgreSQL schema and one Redis (cluster mode), each with a door agent
 * of its own (simulated relays): any hub serves any bridge, and what one hub changes the other two
 * see.
 */
describeCluster('cluster mode: three hubs, PostgreSQL and Redis', () => {
  // A door agent on each hub.
  const cluster = useCluster({ hubs: 3, doors: [{ hubs: [0] }, { hubs: [1] }, { hubs: [2] }] });
  const { doors } = cluster;

  it('runs the periodic jobs on exactly one hub', () => {
    expect(cluster.hubs).toHaveLength(3);
    const leaders = cluster.hubs.filter((h) => /runs the periodic jobs of the cluster/.test(h.proc.output()));
    expect(leaders).toHaveLength(1);
  });

  it('delivers each webhook event once, whichever hub made it', async () => {
    const [a] = cluster.hubs;
    const received: string[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push(JSON.parse(body).id);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const hook = await a.api('POST', '/webhooks', {
        url: `http://127.0.0.1:${port}/hook`,
        categories: ['member'],
      });
      expect(hook.status).toBe(201);
      for (let i = 0; i < 12; i++) {
        const hub = cluster.hubs[i % cluster.hubs.length]; // round-robin: four events on each hub
        const res = await hub.api('POST', '/members', {
          firstName: `Hook ${i}`,
          emailAddress: `hook${i}@cluster.example`,
        });
        expect(res.status).toBe(201);
      }
      await eventually(() => received.length >= 12, 15_000, 'twelve deliveries');
      await new Promise((r) => setTimeout(r, 2_000)); // room for a second delivery, were there one
      expect(received).toHaveLength(12);
      expect(new Set(received).size).toBe(12);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 30_000);

  it('switches every door on through every hub, whichever hub holds its bridge', async () => {
    const [a] = cluster.hubs;
    for (const hub of cluster.hubs) {
      for (const door of doors) {
        await eventually(() => door.agent?.relay() !== 'on', 5_000, 'door closed');
        const res = await hub.api('POST', `/resources/${door.id}/switch-on`, { code: door.code });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.state).toBe('on');
        expect(door.agent?.relay()).toBe('on');
        const log = (await a.api('GET', `/resource-logs/${res.body.resourceLog}`)).body;
        expect(log).toMatchObject({ type: 'allowed', resource: door.id });
      }
    }
  }, 30_000);

  it('shows a list change made on one hub on each of the other two within a second', async () => {
    const count = async (hub: HubProcess) => {
      const res = await fetch(`${hub.base}/members?limit=1`, {
        headers: { authorization: `Bearer ${cluster.token}` },
      });
      return Number(res.headers.get('x-total-count'));
    };
    // The change made on each hub in turn.
    for (const [i, origin] of cluster.hubs.entries()) {
      const others = cluster.hubs.filter((h) => h !== origin);
      const before = await Promise.all(others.map(count)); // the others now hold the total in their caches
      const res = await origin.api('POST', '/members', {
        firstName: `Grace ${i}`,
        emailAddress: `grace${i}@cluster.example`,
      });
      expect(res.status).toBe(201);
      const t0 = Date.now();
      await eventually(
        async () => (await Promise.all(others.map(count))).every((n, j) => n === before[j] + 1),
        1_000,
        `new total on both other hubs (change made on hub ${i})`,
      );
      expect(Date.now() - t0).toBeLessThan(1_000);
    }
  });

  it('counts failed logins at every hub: a guesser meets one limit, not one per hub', async () => {
    const login = async (hub: (typeof cluster.hubs)[number]) =>
      (
        await fetch(`${hub.base}/user/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ emailAddress: 'guess@cluster.example', password: 'wrong' }),
        })
      ).status;
    // Five failures for one address, spread over the three hubs, reach its limit of five.
    for (const i of [0, 1, 2, 0, 1]) expect(await login(cluster.hubs[i])).toBe(401);
    for (const hub of cluster.hubs) expect(await login(hub)).toBe(429);
  });

  it('stops a deleted API key on every hub within a second', async () => {
    const [a, ...others] = cluster.hubs;
    const me = (await a.api('GET', '/user/me')).body;
    const key = (await a.api('POST', '/api-keys', { member: me.id })).body;
    const token = (await a.api('GET', `/api-keys/${key.id}/token`)).body.token;
    for (const hub of others) expect((await hub.api('GET', '/user/me', undefined, token)).status).toBe(200); // cached there
    expect((await a.api('DELETE', `/api-keys/${key.id}`)).status).toBe(204);
    const t0 = Date.now();
    await eventually(
      async () =>
        (await Promise.all(others.map((hub) => hub.api('GET', '/user/me', undefined, token)))).every(
          (res) => res.status === 401,
        ),
      1_000,
      '401 on both other hubs',
    );
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('follows a bridge whose agent moves to the other hub', async () => {
    const [a, b] = cluster.hubs;
    const door = doors[0]; // on a
    const old = door.agent as AgentProcess;
    await old.proc.stop('SIGKILL');
    door.agent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${b.mqttPort}`,
      resourceId: door.id,
      apiKey: door.apiKey,
      controlType: 'door',
      dir: old.dir,
    });
    await eventually(() => bridgeOnline(a, door.id), 10_000, 'online after the move');
    // Stays online (a's disconnect of the old connection must not mark it offline) and works.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await bridgeOnline(a, door.id)).toBe(true);
    await eventually(() => door.agent?.relay() !== 'on', 5_000, 'door closed');
    const res = await a.api('POST', `/resources/${door.id}/switch-on`, { code: door.code });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(door.agent?.relay()).toBe('on');
  }, 30_000);

  it('closes the old connection of a bridge on one hub when it connects to the other', async () => {
    const [a, b] = cluster.hubs;
    const me = (await a.api('GET', '/user/me')).body;
    const r = (await a.api('POST', '/resources', { space: me.space, name: 'Takeover', controlType: 'door' }))
      .body;
    await a.api('PUT', `/resources/${r.id}/bridge`, {});
    const apiKey = (await a.api('GET', `/resources/${r.id}/bridge/api-key`)).body.apiKey;
    const connect = (hub: HubProcess) =>
      new Promise<mqtt.MqttClient>((resolve, reject) => {
        const client = mqtt.connect(`mqtt://127.0.0.1:${hub.mqttPort}`, {
          clientId: `bridge-${r.id}`,
          username: String(r.id),
          password: apiKey,
          protocolVersion: 4,
          reconnectPeriod: 0,
        });
        client.once('connect', () => resolve(client));
        client.once('error', reject);
      });
    const first = await connect(a);
    const closed = new Promise<void>((resolve) => first.once('close', () => resolve()));
    await eventually(() => bridgeOnline(b, r.id), 5_000, 'online through a');
    const second = await connect(b);
    try {
      await Promise.race([
        closed,
        new Promise((_, reject) => setTimeout(() => reject(new Error('old connection still open')), 3_000)),
      ]);
      // The bridge stays online, now held by b.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await bridgeOnline(a, r.id)).toBe(true);
      expect(second.connected).toBe(true);
    } finally {
      first.end(true);
      second.end(true);
    }
  }, 20_000);
});
