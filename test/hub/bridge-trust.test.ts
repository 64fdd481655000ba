import { connect as connectTcp, type Socket } from 'node:net';
import {
  bridgeClientId,
  bridgeTopic,
  type Command,
  offlineKeyHash,
  offlineKeySecret,
} from '@makerspace/shared';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../hub/src/http/auth.js';
import { insertLog } from '../../hub/src/resources/resource-logs.js';
import { switchOn } from '../../hub/src/resources/switch-on.js';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { connectPacket } from '../support/mqtt-packets.js';

describeEachDialect('bridge trust: identity, revocation, presence, offline keys, deadlines', (dialect) => {
  let t: TestHub;
  let owner: string;
  let urls: Awaited<ReturnType<TestHub['listen']>>;
  const agents: FakeAgent[] = [];
  const clients: mqtt.MqttClient[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    urls = await t.listen();
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
    for (const c of clients) c.end(true);
    for (const s of sockets) s.destroy();
    await t?.close();
  });

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: url.startsWith('/api/') ? url : `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  async function resourceWithBridge(token: string, space: number, body: Record<string, unknown> = {}) {
    const res = await api(token, 'POST', '/resources', { space, name: 'Laser', ...body });
    expect(res.statusCode).toBe(201);
    expect((await api(token, 'PUT', `/resources/${res.json().id}/bridge`, {})).statusCode).toBe(200);
    const apiKey = (await api(token, 'GET', `/resources/${res.json().id}/bridge/api-key`)).json().apiKey;
    return { ...res.json(), apiKey } as { id: number; switchOnCode: string; apiKey: string };
  }
  const bridgeRow = (id: number) => api(owner, 'GET', `/resources/${id}/bridge`).then((r) => r.json());

  function connectRaw(url: string, options: mqtt.IClientOptions) {
    const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 5_000, ...options });
    clients.push(client);
    return client;
  }
  const outcome = (client: mqtt.MqttClient) =>
    new Promise<'connected' | { code: number | undefined }>((resolve) => {
      client.once('connect', () => resolve('connected'));
      client.once('error', (err) => resolve({ code: (err as { code?: number }).code }));
    });

  describe('client identity bound to the key', () => {
    it("refuses another account's bridge that takes this bridge's client id; this bridge stays online", async () => {
      const mine = await resourceWithBridge(owner, t.owner.spaceId);
      const agent = await connectFakeAgent(urls.mqttUrl, mine.id, mine.apiKey);
      agents.push(agent);
      await eventually(async () => (await bridgeRow(mine.id)).offline === false, 5_000, 'online');

      const stranger = await t.newAccount('Elsewhere', `else${Math.random()}@test.example`);
      const theirs = await resourceWithBridge(stranger.token, stranger.spaceId);
      for (const url of [urls.mqttUrl, urls.wsUrl]) {
        const thief = connectRaw(url, {
          clientId: bridgeClientId(mine.id),
          username: String(theirs.id),
          password: theirs.apiKey,
        });
        // CONNACK return code 5: not authorized (MQTT-3.2.2-3).
        expect(await outcome(thief)).toEqual({ code: 5 });
      }
      // Any other id than its own is refused too, also with the right key.
      expect(
        await outcome(
          connectRaw(urls.mqttUrl, { clientId: 'laser', username: String(mine.id), password: mine.apiKey }),
        ),
      ).toEqual({ code: 5 });
      await new Promise((r) => setTimeout(r, 200));
      expect(agent.client.connected).toBe(true);
      expect((await bridgeRow(mine.id)).offline).toBe(false);
      expect(t.hub.broker.isOnline(mine.id)).toBe(true);
    });
  });

  describe('revocation with no window', () => {
    it('leaves no connection alive when the key is rotated or the bridge deleted while it connects (200 tries)', async () => {
      const resource = await resourceWithBridge(owner, t.owner.spaceId);
      let key = resource.apiKey;
      let survivors = 0;
      let connectedFirst = 0;
      for (let i = 0; i < 200; i++) {
        const client = connectRaw(urls.mqttUrl, {
          clientId: bridgeClientId(resource.id),
          username: String(resource.id),
          password: key,
        });
        let connected = false;
        client.once('connect', () => {
          connected = true;
        });
        // Land the revocation anywhere from before authentication to after "ready".
        await new Promise((r) => setTimeout(r, i % 9));
        if (i % 4 === 3) {
          expect((await api(owner, 'DELETE', `/resources/${resource.id}/bridge`)).statusCode).toBe(204);
          expect((await api(owner, 'PUT', `/resources/${resource.id}/bridge`, {})).statusCode).toBe(200);
        } else {
          const rotated = await api(owner, 'PUT', `/resources/${resource.id}/bridge`, { rotateApiKey: true });
          expect(rotated.statusCode).toBe(200);
        }
        const alive = await eventually(
          () => !client.connected && !t.hub.broker.isOnline(resource.id),
          1_500,
          'the connection closed',
        ).then(
          () => false,
          () => true,
        );
        if (alive) survivors++;
        if (connected) connectedFirst++;
        client.end(true);
        key = (await api(owner, 'GET', `/resources/${resource.id}/bridge/api-key`)).json().apiKey;
      }
      expect(survivors).toBe(0);
      // The race was really run: many connections got through authentication before the revocation.
      expect(connectedFirst).toBeGreaterThan(20);
    }, 120_000);
  });

  describe('presence', () => {
    it('marks a silent bridge offline within 1.5 times its keepalive', async () => {
      const resource = await resourceWithBridge(owner, t.owner.spaceId);
      const socket = connectTcp(Number(new URL(urls.mqttUrl).port), '127.0.0.1');
      sockets.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(connectPacket(bridgeClientId(resource.id), String(resource.id), resource.apiKey, 1));
      await eventually(async () => (await bridgeRow(resource.id)).offline === false, 3_000, 'online');
      const since = Date.now();
      await eventually(async () => (await bridgeRow(resource.id)).offline === true, 5_000, 'offline');
      // Keepalive 1 s: the broker gives up after 1.5 s (MQTT-3.1.2-24); allow for a loaded machine.
      expect(Date.now() - since).toBeLessThan(3_500);
    });
  });

  describe('offline keys follow domain changes, not URLs', () => {
    it('republishes after changes through odd path spellings, package permissions and member state', async () => {
      const door = await resourceWithBridge(owner, t.owner.spaceId, { controlType: 'door' });
      const agent = await connectFakeAgent(urls.mqttUrl, door.id, door.apiKey);
      agents.push(agent);
      let config: { offlineKeys: string[]; configVersion: number } | null = null;
      agent.client.on('message', (topic, payload) => {
        if (topic.endsWith('/config') && payload.length > 0) config = JSON.parse(payload.toString());
      });
      await agent.client.subscribeAsync(bridgeTopic(door.id, 'config'), { qos: 1 });
      const secret = offlineKeySecret(door.apiKey);
      const hash = (token: string) => offlineKeyHash({ type: 'em4102', token }, secret);
      const listed = (token: string) =>
        (config as { offlineKeys: string[] } | null)?.offlineKeys.includes(hash(token));

      const pkg = (await api(owner, 'POST', '/packages', { name: 'Doors' })).json().id;
      const permission = (
        await api(owner, 'POST', `/packages/${pkg}/permissions`, { type: 'everything' })
      ).json();
      const m = (
        await api(owner, 'POST', '/members', {
          firstName: 'Odd',
          emailAddress: `odd${Math.random()}@test.example`,
        })
      ).json();
      const mp = (await api(owner, 'POST', `/members/${m.id}/packages`, { package: pkg })).json();

      // A key written through a doubled slash.
      const put = await api(owner, 'PUT', `/api/v1//members/${m.id}/key`, {
        type: 'em4102',
        token: '0D0D0D0D01',
      });
      expect(put.statusCode).toBe(200);
      await eventually(() => listed('0D0D0D0D01'), 5_000, 'the key after //members');

      // The member package removed through a percent-encoded path.
      const removed = await api(owner, 'DELETE', `/api/v1/%6dembers/${m.id}/packages/${mp.id}`);
      expect(removed.statusCode).toBe(204);
      await eventually(() => listed('0D0D0D0D01') === false, 5_000, 'the key gone after /%6dembers');

      // Back through a package again, then the permission goes: no member route involved.
      expect((await api(owner, 'POST', `/members/${m.id}/packages`, { package: pkg })).statusCode).toBe(201);
      await eventually(() => listed('0D0D0D0D01'), 5_000, 'the key back');
      expect((await api(owner, 'DELETE', `/packages/${pkg}/permissions/${permission.id}`)).statusCode).toBe(
        204,
      );
      await eventually(() => listed('0D0D0D0D01') === false, 5_000, 'the key gone with the permission');

      // The member's state.
      expect(
        (await api(owner, 'POST', `/packages/${pkg}/permissions`, { type: 'everything' })).statusCode,
      ).toBe(201);
      await eventually(() => listed('0D0D0D0D01'), 5_000, 'the key back with a permission');
      expect(
        (await api(owner, 'PUT', `/api/v1//members/${m.id}`, { state: 'locked', lockVersion: m.lockVersion }))
          .statusCode,
      ).toBe(200);
      await eventually(() => listed('0D0D0D0D01') === false, 5_000, 'the key gone with a locked member');
    });
  });

  describe('one deadline, one truth', () => {
    it('answer, log and relay agree with delays injected around the deadline and a skewed bridge clock (100 tries)', async () => {
      const door = await resourceWithBridge(owner, t.owner.spaceId, { controlType: 'door' });
      // The bridge's clock runs 2 s behind the hub's: without the offset it would carry out
      // commands the hub has given up on.
      const skewMs = -2_000;
      const bridgeNow = () => Date.now() + skewMs;
      const client = connectRaw(urls.mqttUrl, {
        clientId: bridgeClientId(door.id),
        username: String(door.id),
        password: door.apiKey,
      });
      await new Promise((resolve) => client.once('connect', resolve));
      const executed = new Set<string>();
      let delays: [number, number] = [0, 0];
      client.on('message', (_topic, payload) => {
        const command = JSON.parse(payload.toString()) as Command;
        const [beforeCheck, beforeReply] = delays;
        setTimeout(() => {
          // The agent's rule: refuse a command whose expiry has passed by its own clock.
          if (Date.parse(command.expiresAt) <= bridgeNow()) return;
          executed.add(command.sessionId as string);
          setTimeout(() => {
            client.publish(
              bridgeTopic(door.id, 'replies'),
              JSON.stringify({
                id: command.id,
                ok: true,
                state: { relay: 'on', since: new Date().toISOString(), sessionId: command.sessionId },
              }),
              { qos: 1 },
            );
          }, beforeReply);
        }, beforeCheck);
      });
      await client.subscribeAsync(bridgeTopic(door.id, 'commands'), { qos: 1 });
      client.publish(
        bridgeTopic(door.id, 'status'),
        JSON.stringify({
          online: true,
          agentVersion: 'test',
          hardware: 'skewed',
          startedAt: new Date(bridgeNow()).toISOString(),
          clock: new Date(bridgeNow()).toISOString(),
        }),
        { qos: 1, retain: true },
      );
      await eventually(
        () => Math.abs(t.hub.broker.clockOffsetMs(door.id) - skewMs) < 200,
        5_000,
        'the offset',
      );

      const caller: Caller = {
        memberId: t.owner.memberId,
        accountId: t.owner.accountId,
        spaceId: t.owner.spaceId,
        privileges: 'owner',
        superuser: false,
        apiKeyId: 0,
      };
      const timeoutMs = 200;
      const answers: { log: number; switched: boolean }[] = [];
      let refused = 0;
      for (let i = 0; i < 100; i++) {
        // Before the expiry check: anywhere from well inside to well past the deadline.
        delays = [100 + Math.random() * 200, Math.random() * 60];
        try {
          const result = await switchOn(t.hub.ctx, caller, door.id, door.switchOnCode, timeoutMs);
          answers.push({ log: result.resourceLog, switched: true });
        } catch (err) {
          const e = err as { statusCode: number; data?: { resourceLog: number } };
          expect(e.statusCode).toBe(504);
          answers.push({ log: e.data!.resourceLog, switched: false });
          refused++;
        }
      }
      // Late replies, if any, have arrived by now.
      await new Promise((r) => setTimeout(r, 500));
      let disagreements = 0;
      for (const a of answers) {
        const log = await t.hub.ctx.db
          .selectFrom('resource_logs')
          .select('type')
          .where('id', '=', a.log)
          .executeTakeFirstOrThrow();
        const relay = executed.has(String(a.log));
        if ((log.type === 'allowed') !== a.switched || relay !== a.switched) disagreements++;
      }
      expect(disagreements).toBe(0);
      // Both sides of the deadline were exercised.
      expect(refused).toBeGreaterThan(10);
      expect(100 - refused).toBeGreaterThan(10);
    }, 120_000);
  });

  describe('crash-safe switch-on', () => {
    const caller = (): Caller => ({
      memberId: t.owner.memberId,
      accountId: t.owner.accountId,
      spaceId: t.owner.spaceId,
      privileges: 'owner',
      superuser: false,
      apiKeyId: 0,
    });
    /** What a hub killed between command and reply leaves behind: an open allowed log and its pending record. */
    async function leftByACrash(resource: { id: number }) {
      const log = await insertLog(t.hub.ctx.db, {
        account: t.owner.accountId,
        resource: resource.id,
        type: 'allowed',
        member: t.owner.memberId,
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      });
      const command = { id: `c-${log.id}`, type: 'switchOn', maxDuration: null };
      await t.hub.ctx.db
        .insertInto('pending_switch_ons')
        .values({
          commandId: command.id,
          resource: resource.id,
          log: log.id,
          door: 0,
          state: 'pending',
          command: JSON.stringify(command),
          createdAt: new Date().toISOString(),
        })
        .execute();
      return log.id;
    }
    const logRow = (id: number) =>
      t.hub.ctx.db.selectFrom('resource_logs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const pendingOf = async (resource: number) =>
      (
        await t.hub.ctx.db
          .selectFrom('pending_switch_ons')
          .select('commandId')
          .where('resource', '=', resource)
          .execute()
      ).length;
    async function reconnect(
      resource: { id: number; apiKey: string },
      state: { relay: 'on' | 'off'; sessionId: string | null },
      answering: boolean,
    ) {
      const agent = await connectFakeAgent(urls.mqttUrl, resource.id, resource.apiKey);
      agents.push(agent);
      agent.answering = answering;
      await agent.publish('state', { ...state, since: new Date().toISOString() });
      return agent;
    }

    it('ends a switch-on the bridge never received as failed, asking in a way that cannot switch', async () => {
      const machine = await resourceWithBridge(owner, t.owner.spaceId, { controlType: 'machine' });
      const lost = await leftByACrash(machine);
      const agent = await reconnect(machine, { relay: 'off', sessionId: null }, false);
      await eventually(
        async () => (await pendingOf(machine.id)) === 0,
        8_000,
        'the pending switch-on settled',
      );
      expect(await logRow(lost)).toMatchObject({ type: 'denied', reason: 'thirdPartyError' });
      expect((await logRow(lost)).stoppedAt).not.toBeNull();
      // The hub asked with the original id and an expiry in the past: nothing could switch.
      expect(agent.commands.map((c) => c.id)).toEqual([`c-${lost}`]);
      expect(Date.parse(agent.commands[0].expiresAt)).toBeLessThan(Date.now());
      await agent.close();
    });

    it('keeps a switch-on the relay is on for, and stops open sessions the relay does not run', async () => {
      const machine = await resourceWithBridge(owner, t.owner.spaceId, { controlType: 'machine' });
      const stale = await insertLog(t.hub.ctx.db, {
        account: t.owner.accountId,
        resource: machine.id,
        type: 'allowed',
        member: t.owner.memberId,
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      });
      const switched = await leftByACrash(machine);
      const agent = await reconnect(machine, { relay: 'on', sessionId: String(switched) }, false);
      await eventually(
        async () => (await logRow(stale.id)).stoppedAt !== null,
        8_000,
        'the stale session stopped',
      );
      expect(await pendingOf(machine.id)).toBe(0);
      expect(await logRow(stale.id)).toMatchObject({ type: 'allowed', stopType: 'offline' });
      expect(await logRow(switched)).toMatchObject({ type: 'allowed', stoppedAt: null });
      await agent.close();
    });

    it("leaves a switch-on under way to its own reply when the bridge's first state comes meanwhile", async () => {
      // A bridge that has just connected reports its relay while a member's switch-on waits for
      // the reply: the reconciliation must not ask about that command again (the same id), which
      // took the reply from the switch-on and answered the member 504 for a switch that happened.
      const machine = await resourceWithBridge(owner, t.owner.spaceId, { controlType: 'machine' });
      const agent = await connectFakeAgent(urls.mqttUrl, machine.id, machine.apiKey);
      agents.push(agent);
      agent.answering = false;
      await eventually(() => t.hub.broker.isOnline(machine.id), 5_000, 'online');
      const answer = switchOn(t.hub.ctx, caller(), machine.id, machine.switchOnCode, 3_000).then(
        (result) => ({ result }),
        (err) => ({ err }),
      );
      await eventually(async () => agent.commands.length === 1, 5_000, 'the command received');
      const since = new Date(Date.now() - 60_000).toISOString();
      await agent.publish('state', { relay: 'off', sessionId: null, since });
      const relaySince = async () =>
        (
          await t.hub.ctx.db
            .selectFrom('bridges')
            .select('relaySince')
            .where('resource', '=', machine.id)
            .executeTakeFirstOrThrow()
        ).relaySince;
      await eventually(async () => (await relaySince()) === since, 5_000, 'the state stored');
      // The reconciliation runs beside the state's handling; give it time to ask, if it would.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(agent.commands).toHaveLength(1);
      const command = agent.commands[0];
      await agent.publish('replies', {
        id: command.id,
        ok: true,
        state: { relay: 'on', since: new Date().toISOString(), sessionId: command.sessionId ?? null },
      });
      const outcome = await answer;
      expect(outcome).toHaveProperty('result');
      const logId = Number(command.sessionId);
      expect(await logRow(logId)).toMatchObject({ type: 'allowed', stoppedAt: null });
      await eventually(async () => (await pendingOf(machine.id)) === 0, 5_000, 'the record settled');
      await agent.close();
    });

    it('records a reply that comes after the 504 as a late switch', async () => {
      const door = await resourceWithBridge(owner, t.owner.spaceId, { controlType: 'door' });
      const agent = await connectFakeAgent(urls.mqttUrl, door.id, door.apiKey);
      agents.push(agent);
      agent.answering = false;
      await eventually(() => t.hub.broker.isOnline(door.id), 5_000, 'online');
      const err = await switchOn(t.hub.ctx, caller(), door.id, door.switchOnCode, 100).catch((e) => e);
      expect(err.statusCode).toBe(504);
      const logId = err.data.resourceLog as number;
      expect(await logRow(logId)).toMatchObject({ type: 'denied' });
      const command = agent.commands.at(-1)!;
      await agent.publish('replies', {
        id: command.id,
        ok: true,
        state: { relay: 'on', since: new Date().toISOString(), sessionId: command.sessionId ?? null },
      });
      await eventually(
        async () => (await logRow(logId)).type === 'allowed',
        5_000,
        'the late switch recorded',
      );
      expect((await logRow(logId)).notes).toMatch(/late/);
      expect(await pendingOf(door.id)).toBe(0);
    });
  });
});
