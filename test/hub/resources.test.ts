import { createHmac } from 'node:crypto';
import { bridgeClientId, bridgeTopic } from '@makerspace/shared';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** RFC 6238 as an authenticator app computes it, written apart from the hub's code. */
function appCode(base32Secret: string, atMs: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...base32Secret].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => Number.parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[19] & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

describeEachDialect('resources, bridges, switch-on and log ingest', (dialect) => {
  let t: TestHub;
  let owner: string;
  let urls: Awaited<ReturnType<TestHub['listen']>>;
  const agents: FakeAgent[] = [];
  const clients: mqtt.MqttClient[] = [];

  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    urls = await t.listen();
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
    for (const c of clients) c.end(true);
    await t?.close();
  });

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  async function newResource(body: Record<string, unknown> = {}) {
    const res = await api(owner, 'POST', '/resources', {
      space: t.owner.spaceId,
      name: 'Laser cutter',
      ...body,
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  }
  async function withBridge(resource: { id: number }) {
    const bridge = await api(owner, 'PUT', `/resources/${resource.id}/bridge`, {});
    expect(bridge.statusCode).toBe(200);
    const key = await api(owner, 'GET', `/resources/${resource.id}/bridge/api-key`);
    expect(key.statusCode).toBe(200);
    return key.json().apiKey as string;
  }
  let everything: number | null = null;
  /** A member with a package that allows every resource (the package rule is part of the policy). */
  async function memberWithToken(privileges: 'member' | 'admin' = 'member') {
    if (everything === null) {
      everything = (await api(owner, 'POST', '/packages', { name: 'Full membership' })).json().id as number;
      expect(
        (await api(owner, 'POST', `/packages/${everything}/permissions`, { type: 'everything' })).statusCode,
      ).toBe(201);
    }
    const member = (
      await api(owner, 'POST', '/members', {
        firstName: 'Maya',
        lastName: 'Maker',
        emailAddress: `maya${Math.random()}@test.example`,
      })
    ).json();
    expect(
      (await api(owner, 'POST', `/members/${member.id}/packages`, { package: everything })).statusCode,
    ).toBe(201);
    if (privileges !== 'member') await api(owner, 'PUT', `/members/${member.id}/privileges`, { privileges });
    const key = (await api(owner, 'POST', '/api-keys', { member: member.id })).json();
    const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token as string;
    return { member, token };
  }

  describe('resources and resource types', () => {
    it('creates, lists with filters, updates with lockVersion and deletes resources', async () => {
      const type = (await api(owner, 'POST', '/resource-types', { name: '3D printer' })).json();
      const printer = await newResource({ name: 'Prusa', type: type.id, controlType: 'machine' });
      const door = await newResource({ name: 'Front door', controlType: 'door' });
      expect(printer).toMatchObject({ name: 'Prusa', type: type.id, state: 'active', lastUsed: null });
      expect(printer.switchOnCode).toMatch(/^[A-Z2-9]{10}$/);

      const doors = await api(owner, 'GET', '/resources?controlType=door');
      expect(doors.json().map((r: any) => r.id)).toContain(door.id);
      expect(doors.json().map((r: any) => r.id)).not.toContain(printer.id);
      expect((await api(owner, 'GET', `/resources?type=${type.id}`)).json().map((r: any) => r.id)).toEqual([
        printer.id,
      ]);
      expect((await api(owner, 'GET', '/resources?q=prus')).json().map((r: any) => r.id)).toEqual([
        printer.id,
      ]);

      const updated = await api(owner, 'PUT', `/resources/${printer.id}`, { ...printer, name: 'Prusa MK4' });
      expect(updated.json()).toMatchObject({ name: 'Prusa MK4', lockVersion: printer.lockVersion + 1 });
      expect(
        (await api(owner, 'PUT', `/resources/${printer.id}`, { lockVersion: printer.lockVersion, name: 'x' }))
          .statusCode,
      ).toBe(409);

      expect((await api(owner, 'POST', '/resources', { space: t.owner.spaceId })).statusCode).toBe(400);
      expect((await api(owner, 'POST', '/resources', { space: 99999, name: 'x' })).statusCode).toBe(422);
      expect((await api(owner, 'DELETE', `/resources/${door.id}`)).statusCode).toBe(204);
      expect((await api(owner, 'GET', `/resources/${door.id}`)).statusCode).toBe(404);
    });

    it('shows the switch-on code to admins only, and rotates it through PUT', async () => {
      const resource = await newResource();
      const { token } = await memberWithToken();
      const seen = (await api(token, 'GET', `/resources/${resource.id}`)).json();
      expect(seen).not.toHaveProperty('switchOnCode');
      const rotated = (
        await api(owner, 'PUT', `/resources/${resource.id}`, {
          lockVersion: resource.lockVersion,
          switchOnCode: null,
        })
      ).json();
      expect(rotated.switchOnCode).toMatch(/^[A-Z2-9]{10}$/);
      expect(rotated.switchOnCode).not.toBe(resource.switchOnCode);
      const set = (
        await api(owner, 'PUT', `/resources/${resource.id}`, {
          lockVersion: rotated.lockVersion,
          switchOnCode: 'my-code-1',
        })
      ).json();
      expect(set.switchOnCode).toBe('my-code-1');
    });

    it('hides resources of another account (404)', async () => {
      const resource = await newResource();
      const other = await t.newAccount('Elsewhere', `else${Math.random()}@test.example`);
      expect((await api(other.token, 'GET', `/resources/${resource.id}`)).statusCode).toBe(404);
      expect(
        (
          await api(other.token, 'POST', `/resources/${resource.id}/switch-on`, {
            code: resource.switchOnCode,
          })
        ).statusCode,
      ).toBe(404);
      expect((await api(other.token, 'GET', '/resources')).json()).toEqual([]);
    });
  });

  describe('bridges', () => {
    it('answers [] without a bridge, creates one with a key, and shows the key only to its creator', async () => {
      const resource = await newResource();
      expect((await api(owner, 'GET', `/resources/${resource.id}/bridge`)).json()).toEqual([]);
      await withBridge(resource);
      const bridge = (await api(owner, 'GET', `/resources/${resource.id}/bridge`)).json();
      expect(bridge).toMatchObject({
        resource: resource.id,
        offline: true,
        hasAPIKey: true,
        heartbeatInterval: 60,
      });
      const embedded = (await api(owner, 'GET', `/resources/${resource.id}?embed=bridge`)).json();
      expect(embedded._embedded.bridge.resource).toBe(resource.id);

      const { token: adminToken } = await memberWithToken('admin');
      const other = await api(adminToken, 'GET', `/resources/${resource.id}/bridge/api-key`);
      expect(other.statusCode).toBe(204);
      expect(other.body).toBe('');
      const { token: memberToken } = await memberWithToken();
      expect((await api(memberToken, 'GET', `/resources/${resource.id}/bridge/api-key`)).statusCode).toBe(
        204,
      );
      expect(
        (await api(owner, 'PUT', `/resources/${resource.id}/bridge`, { heartbeatInterval: 30 })).json()
          .heartbeatInterval,
      ).toBe(30);
    });

    it('refuses a wrong bridge key and confines a bridge to its own topics', async () => {
      const a = await newResource({ name: 'A' });
      const b = await newResource({ name: 'B' });
      const keyA = await withBridge(a);
      const keyB = await withBridge(b);

      const wrong = mqtt.connect(urls.mqttUrl, {
        username: String(a.id),
        password: keyB,
        reconnectPeriod: 0,
      });
      clients.push(wrong);
      const err = await new Promise<Error>((resolve) => wrong.once('error', resolve));
      expect(err.message).toMatch(/Bad username or password|Not authorized/i);

      const agentB = await connectFakeAgent(urls.mqttUrl, b.id, keyB);
      agents.push(agentB);
      const spy = mqtt.connect(urls.mqttUrl, {
        clientId: bridgeClientId(a.id),
        username: String(a.id),
        password: keyA,
        reconnectPeriod: 0,
      });
      clients.push(spy);
      await new Promise((resolve) => spy.once('connect', resolve));
      // The broker answers a refused subscription with the failure code 128 (MQTT-3.9.3).
      await expect(spy.subscribeAsync(bridgeTopic(b.id, 'commands'), { qos: 1 })).rejects.toThrow(
        /Subscribe error/,
      );
      await expect(spy.subscribeAsync('makerspace/#', { qos: 1 })).rejects.toThrow(/Subscribe error/);
      expect((await spy.subscribeAsync(bridgeTopic(a.id, 'commands'), { qos: 1 })).map((g) => g.qos)).toEqual(
        [1],
      );
      const seen: string[] = [];
      spy.on('message', (topic) => seen.push(topic));

      // Publishing on another bridge's topic gets the client disconnected, and nothing arrives.
      const closed = new Promise((resolve) => spy.once('close', resolve));
      spy.publish(
        bridgeTopic(b.id, 'replies'),
        JSON.stringify({
          id: 'x',
          ok: true,
          state: { relay: 'on', since: new Date().toISOString(), sessionId: null },
        }),
        { qos: 1 },
      );
      await closed;
      const switched = await api(owner, 'POST', `/resources/${b.id}/switch-on`, { code: b.switchOnCode });
      expect(switched.statusCode).toBe(200);
      expect(seen.filter((topic) => topic.includes(`/${b.id}/`))).toEqual([]);
    });

    it('disconnects the agent at once when its key is rotated', async () => {
      const resource = await newResource();
      const key = await withBridge(resource);
      const agent = await connectFakeAgent(urls.mqttUrl, resource.id, key);
      agents.push(agent);
      await eventually(
        async () => (await api(owner, 'GET', `/resources/${resource.id}/bridge`)).json().offline === false,
        5000,
        'online',
      );
      const closed = new Promise((resolve) => agent.client.once('close', resolve));
      await api(owner, 'PUT', `/resources/${resource.id}/bridge`, { rotateApiKey: true });
      await closed;
      const newKey = (await api(owner, 'GET', `/resources/${resource.id}/bridge/api-key`)).json().apiKey;
      expect(newKey).not.toBe(key);
      await eventually(
        async () => (await api(owner, 'GET', `/resources/${resource.id}/bridge`)).json().offline === true,
        5000,
        'offline',
      );
    });
  });

  describe('switch-on', () => {
    it('switches a door over MQTT and logs it as allowed and stopped at once', async () => {
      const door = await newResource({ name: 'Door', controlType: 'door', pulseSeconds: 3 });
      const agent = await connectFakeAgent(urls.wsUrl, door.id, await withBridge(door));
      agents.push(agent);
      const { member, token } = await memberWithToken();
      const res = await api(token, 'POST', `/resources/${door.id}/switch-on`, { code: door.switchOnCode });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ state: 'on', maxDuration: null });
      expect(agent.commands.at(-1)).toMatchObject({
        type: 'pulse',
        seconds: 3,
        sessionId: String(res.json().resourceLog),
      });
      const log = (await api(owner, 'GET', `/resource-logs/${res.json().resourceLog}?resolve=member`)).json();
      expect(log).toMatchObject({
        type: 'allowed',
        resource: door.id,
        member: { id: member.id, firstName: 'Maya' },
      });
      expect(log.stoppedAt).not.toBeNull();
      const lastUsed = (await api(owner, 'GET', `/resources/${door.id}`)).json().lastUsed;
      expect(lastUsed).toMatchObject({ id: log.id, member: member.id });
      // The member sees their own log; another member does not.
      expect((await api(token, 'GET', `/resource-logs/${log.id}`)).statusCode).toBe(200);
      const { token: stranger } = await memberWithToken();
      expect((await api(stranger, 'GET', `/resource-logs/${log.id}`)).statusCode).toBe(404);
    });

    it('TOTP codes come from a base32 secret, so an authenticator app given the otpauth URI shows the code the hub takes', async () => {
      const machine = await newResource({ name: 'Laser 2', controlType: 'machine', codeMode: 'totp' });
      expect(machine.switchOnCode).toMatch(/^[A-Z2-7]{32}$/);
      // What an authenticator app does with the URI: base32-decode the secret, RFC 6238 over it.
      const uri = new URL(machine.totpUri);
      expect(uri.protocol).toBe('otpauth:');
      expect(uri.host).toBe('totp');
      expect(decodeURIComponent(uri.pathname)).toBe('/Makerspace:Laser 2');
      expect(Object.fromEntries(uri.searchParams)).toEqual({
        secret: machine.switchOnCode,
        issuer: 'Makerspace',
        algorithm: 'SHA1',
        digits: '6',
        period: '30',
      });
      const agent = await connectFakeAgent(urls.mqttUrl, machine.id, await withBridge(machine));
      agents.push(agent);
      const { token } = await memberWithToken();
      const wrong = await api(token, 'POST', `/resources/${machine.id}/switch-on`, { code: '000000' });
      expect(wrong.statusCode).toBe(403);
      const res = await api(token, 'POST', `/resources/${machine.id}/switch-on`, {
        code: appCode(uri.searchParams.get('secret') as string, Date.now()),
      });
      expect(res.statusCode).toBe(200);
      // A member never sees the secret or the URI.
      const seen = (await api(token, 'GET', `/resources/${machine.id}`)).json();
      expect(seen.switchOnCode).toBeUndefined();
      expect(seen.totpUri).toBeUndefined();
    });

    it('a TOTP secret an admin sets must be base32 of 16+ characters; switching modes makes a new code of the new kind', async () => {
      const door = await newResource({ controlType: 'door' });
      expect(door.switchOnCode).toMatch(/^[A-Z2-9]{10}$/);
      expect(door.totpUri).toBeUndefined();
      let lockVersion = door.lockVersion;
      const put = async (body: Record<string, unknown>) => {
        const res = await api(owner, 'PUT', `/resources/${door.id}`, { ...body, lockVersion });
        if (res.statusCode === 200) lockVersion = res.json().lockVersion;
        return res;
      };
      const bad = await put({ codeMode: 'totp', switchOnCode: 'SECRET8901' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().data).toMatchObject({ field: 'switchOnCode' });
      expect((await api(owner, 'GET', `/resources/${door.id}`)).json()).toMatchObject({
        codeMode: 'static',
        switchOnCode: door.switchOnCode,
        lockVersion,
      });
      const totp = (await put({ codeMode: 'totp' })).json();
      expect(totp.switchOnCode).toMatch(/^[A-Z2-7]{32}$/);
      // Saving other fields keeps the secret.
      const renamed = (await put({ codeMode: 'totp', name: 'Front' })).json();
      expect(renamed.switchOnCode).toBe(totp.switchOnCode);
      const given = (await put({ switchOnCode: 'jbswy3dpehpk3pxpjbswy3dp' })).json();
      expect(given.switchOnCode).toBe('JBSWY3DPEHPK3PXPJBSWY3DP');
      const back = (await put({ codeMode: 'static' })).json();
      expect(back.switchOnCode).toMatch(/^[A-Z2-9]{10}$/);
      expect(back.totpUri).toBeUndefined();
    });

    it('asks the access policy: a member without a package is denied noPackage and nothing switches', async () => {
      const door = await newResource({ controlType: 'door' });
      const agent = await connectFakeAgent(urls.mqttUrl, door.id, await withBridge(door));
      agents.push(agent);
      const member = (await api(owner, 'POST', '/members', { firstName: 'No', lastName: 'Package' })).json();
      const key = (await api(owner, 'POST', '/api-keys', { member: member.id })).json();
      const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token;
      const res = await api(token, 'POST', `/resources/${door.id}/switch-on`, { code: door.switchOnCode });
      expect(res.statusCode).toBe(403);
      expect(res.json().data.reason).toBe('noPackage');
      expect(agent.commands).toEqual([]);
      // Admins and owners pass the package rule.
      expect(
        (await api(owner, 'POST', `/resources/${door.id}/switch-on`, { code: door.switchOnCode })).statusCode,
      ).toBe(200);
    });

    it('denies wrong codes with 403 and a log, answers 429 from the 6th on, and never switches', async () => {
      const door = await newResource({ controlType: 'door' });
      const agent = await connectFakeAgent(urls.mqttUrl, door.id, await withBridge(door));
      agents.push(agent);
      const { member, token } = await memberWithToken();
      for (let i = 1; i <= 5; i++) {
        const res = await api(token, 'POST', `/resources/${door.id}/switch-on`, { code: 'WRONG' });
        expect(res.statusCode).toBe(403);
        expect(res.json().data.reason).toBe('wrongCode');
      }
      const sixth = await api(token, 'POST', `/resources/${door.id}/switch-on`, { code: door.switchOnCode });
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json().data.reason).toBe('tooManyAttempts');
      expect(agent.commands).toEqual([]);
      const logs = (await api(owner, 'GET', `/resource-logs?resource=${door.id}&member=${member.id}`)).json();
      expect(logs.map((l: any) => l.reason)).toEqual([
        'tooManyAttempts',
        'wrongCode',
        'wrongCode',
        'wrongCode',
        'wrongCode',
        'wrongCode',
      ]);
      expect(logs.every((l: any) => l.type === 'denied')).toBe(true);
      // Another member is not locked out.
      const { token: other } = await memberWithToken();
      expect(
        (await api(other, 'POST', `/resources/${door.id}/switch-on`, { code: door.switchOnCode })).statusCode,
      ).toBe(200);
    });

    it('denies a locked resource (403 inactive), answers 503 offline and 504 without a reply', async () => {
      const machine = await newResource({ controlType: 'machine' });
      const key = await withBridge(machine);
      const { token } = await memberWithToken();
      const offline = await api(token, 'POST', `/resources/${machine.id}/switch-on`, {
        code: machine.switchOnCode,
      });
      expect(offline.statusCode).toBe(503);

      const agent = await connectFakeAgent(urls.mqttUrl, machine.id, key);
      agents.push(agent);
      agent.answering = false;
      const started = Date.now();
      const silent = await api(token, 'POST', `/resources/${machine.id}/switch-on`, {
        code: machine.switchOnCode,
      });
      expect(silent.statusCode).toBe(504);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
      expect(agent.commands.at(-1)?.expiresAt).toBeDefined();
      const log = (await api(owner, 'GET', `/resource-logs/${silent.json().data.resourceLog}`)).json();
      expect(log).toMatchObject({ type: 'denied', reason: 'thirdPartyError' });

      const current = (await api(owner, 'GET', `/resources/${machine.id}`)).json();
      await api(owner, 'PUT', `/resources/${machine.id}`, {
        lockVersion: current.lockVersion,
        state: 'locked',
      });
      const locked = await api(owner, 'POST', `/resources/${machine.id}/switch-on`, {
        code: machine.switchOnCode,
      });
      expect(locked.statusCode).toBe(403);
      expect(locked.json().data.reason).toBe('inactive');
    }, 20_000);

    it("runs a machine session until switch-off and accepts Fabman's spelling", async () => {
      const machine = await newResource({ controlType: 'machine' });
      const agent = await connectFakeAgent(urls.mqttUrl, machine.id, await withBridge(machine));
      agents.push(agent);
      const { token } = await memberWithToken();
      const on = await api(token, 'POST', `/resources/${machine.id}/bridge/switch-on`, {
        code: machine.switchOnCode,
      });
      // Fabman answers 201 on its spelling; the Home Assistant integration takes anything else for a failure.
      expect(on.statusCode).toBe(201);
      expect(agent.commands.at(-1)?.type).toBe('switchOn');
      const active = (await api(owner, 'GET', `/resource-logs?resource=${machine.id}&status=active`)).json();
      expect(active.map((l: any) => l.id)).toEqual([on.json().resourceLog]);
      const { token: stranger } = await memberWithToken();
      expect((await api(stranger, 'POST', `/resources/${machine.id}/bridge/switch-off`)).statusCode).toBe(
        403,
      );
      const off = await api(token, 'POST', `/resources/${machine.id}/bridge/switch-off`);
      expect(off.statusCode).toBe(201);
      expect(off.json().state).toBe('off');
      const log = (await api(owner, 'GET', `/resource-logs/${on.json().resourceLog}`)).json();
      expect(log).toMatchObject({ stopType: 'normal' });
      expect(log.stoppedAt).not.toBeNull();
    });
  });

  describe('log ingest', () => {
    it('stores each agent log once and acknowledges it after the commit', async () => {
      const machine = await newResource();
      const agent = await connectFakeAgent(urls.mqttUrl, machine.id, await withBridge(machine));
      agents.push(agent);
      const { member } = await memberWithToken();
      const id = crypto.randomUUID();
      const item = {
        kind: 'log' as const,
        id,
        type: 'allowed' as const,
        createdAt: '2026-11-20T10:00:00.000Z',
        memberId: member.id,
        offline: true,
      };
      await agent.publish('logs', { items: [item] });
      await agent.publish('logs', { items: [item] });
      await eventually(() => agent.acks.length >= 2, 5000, 'two acks');
      expect(agent.acks).toEqual([[id], [id]]);
      const logs = (await api(owner, 'GET', `/resource-logs?resource=${machine.id}`)).json();
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        type: 'allowed',
        member: member.id,
        createdAt: '2026-11-20T10:00:00.000Z',
        offline: true,
      });

      // A stop item ends the session the log opened.
      const stopId = crypto.randomUUID();
      await agent.publish('logs', {
        items: [
          {
            kind: 'stop',
            id: stopId,
            sessionId: id,
            stopType: 'automatic',
            stoppedAt: '2026-11-20T10:30:00.000Z',
          },
        ],
      });
      await eventually(() => agent.acks.some((a) => a.includes(stopId)), 5000, 'stop ack');
      const stopped = (await api(owner, 'GET', `/resource-logs/${logs[0].id}`)).json();
      expect(stopped).toMatchObject({ stoppedAt: '2026-11-20T10:30:00.000Z', stopType: 'automatic' });
    });

    it('drops malformed messages without acknowledging or crashing', async () => {
      const machine = await newResource();
      const agent = await connectFakeAgent(urls.mqttUrl, machine.id, await withBridge(machine));
      agents.push(agent);
      agent.client.publish(
        bridgeTopic(machine.id, 'logs'),
        '{"items": [{"kind": "log", "id": "not-a-uuid"}]}',
        { qos: 1 },
      );
      agent.client.publish(bridgeTopic(machine.id, 'logs'), 'not json at all', { qos: 1 });
      const good = crypto.randomUUID();
      await agent.publish('logs', {
        items: [{ kind: 'log', id: good, type: 'reboot', createdAt: new Date().toISOString() }],
      });
      await eventually(() => agent.acks.length >= 1, 5000, 'ack');
      expect(agent.acks).toEqual([[good]]);
      expect((await api(owner, 'GET', `/resource-logs?resource=${machine.id}`)).json()).toHaveLength(1);
    });

    it('disconnects the agent and answers 404 once the resource is deleted', async () => {
      const resource = await newResource();
      const agent = await connectFakeAgent(urls.mqttUrl, resource.id, await withBridge(resource));
      agents.push(agent);
      const closed = new Promise((resolve) => agent.client.once('close', resolve));
      expect((await api(owner, 'DELETE', `/resources/${resource.id}`)).statusCode).toBe(204);
      await closed;
      expect(
        (await api(owner, 'POST', `/resources/${resource.id}/switch-on`, { code: resource.switchOnCode }))
          .statusCode,
      ).toBe(404);
      expect((await api(owner, 'GET', `/resources/${resource.id}/bridge`)).statusCode).toBe(404);
    });
  });
});
