import { webhookUrlColumns } from '../../hub/src/webhooks/webhooks.js';
import { randomUUID } from 'node:crypto';
import {
  type AccessReply,
  type BridgeConfig,
  bridgeTopic,
  offlineKeyHash,
  offlineKeySecret,
} from '@makerspace/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { refreshBridgeConfigs } from '../../hub/src/resources/bridge-config.js';
import { localDate } from '../../hub/src/kernel/zoned-time.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** A fake agent that also taps cards and records the access replies and configs it receives. */
interface CardBridge {
  agent: FakeAgent;
  resourceId: number;
  config(): BridgeConfig | null;
  /** offlineKeyHash of an em4102 card, keyed with this bridge's secret. */
  hash(token: string): string;
  tap(token: string, currentSession?: string | null): Promise<AccessReply>;
}

describeEachDialect('key cards: member keys, key assignments, taps and offline keys', (dialect) => {
  let t: TestHub;
  let owner: string;
  let urls: Awaited<ReturnType<TestHub['listen']>>;
  const agents: FakeAgent[] = [];
  let everything: number;

  // The system clock, moved forward by `shift` ms when a test needs another day.
  let shift = 0;
  const clock = { now: () => new Date(Date.now() + shift) };

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock });
    owner = t.owner.token;
    urls = await t.listen();
    everything = (await api(owner, 'POST', '/packages', { name: 'Full membership' })).json().id;
    expect(
      (await api(owner, 'POST', `/packages/${everything}/permissions`, { type: 'everything' })).statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
    await t?.close();
  });

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  /** A member, by default with the everything package and an em4102 key card. */
  async function member(options: { token?: string; pkg?: boolean; state?: 'active' | 'locked' } = {}) {
    const m = (
      await api(owner, 'POST', '/members', {
        firstName: 'Kim',
        lastName: `Card${Math.floor(Math.random() * 1e6)}`,
        emailAddress: `kim${randomUUID()}@test.example`,
        ...(options.state ? { state: options.state } : {}),
      })
    ).json();
    let memberPackage: number | null = null;
    if (options.pkg !== false) {
      const res = await api(owner, 'POST', `/members/${m.id}/packages`, { package: everything });
      expect(res.statusCode).toBe(201);
      memberPackage = res.json().id;
    }
    if (options.token) {
      const res = await api(owner, 'PUT', `/members/${m.id}/key`, { type: 'em4102', token: options.token });
      expect(res.statusCode).toBe(200);
    }
    return { ...m, memberPackage } as {
      id: number;
      firstName: string;
      lastName: string;
      memberPackage: number | null;
    };
  }

  async function bridge(body: Record<string, unknown>): Promise<CardBridge> {
    const resource = (
      await api(owner, 'POST', '/resources', { space: t.owner.spaceId, name: 'Reader', ...body })
    ).json();
    expect((await api(owner, 'PUT', `/resources/${resource.id}/bridge`, {})).statusCode).toBe(200);
    const apiKey = (await api(owner, 'GET', `/resources/${resource.id}/bridge/api-key`)).json().apiKey;
    const agent = await connectFakeAgent(urls.mqttUrl, resource.id, apiKey);
    agents.push(agent);
    const replies = new Map<string, AccessReply>();
    let config: BridgeConfig | null = null;
    agent.client.on('message', (topic, payload) => {
      if (topic.endsWith('/access/reply')) {
        const reply = JSON.parse(payload.toString());
        replies.set(reply.id, reply);
      } else if (topic.endsWith('/config') && payload.length > 0) {
        config = JSON.parse(payload.toString());
      }
    });
    // Subscribing again re-sends the retained config to the listener above.
    await agent.client.subscribeAsync(
      [bridgeTopic(resource.id, 'access/reply'), bridgeTopic(resource.id, 'config')],
      { qos: 1 },
    );
    const secret = offlineKeySecret(apiKey);
    return {
      hash: (token: string) => offlineKeyHash({ type: 'em4102', token }, secret),
      agent,
      resourceId: resource.id,
      config: () => config,
      async tap(token, currentSession = null) {
        const id = randomUUID();
        await agent.publish('access', {
          id,
          keys: [{ type: 'em4102', token }],
          currentSession: currentSession ? { id: currentSession } : null,
        });
        return eventually(() => replies.get(id), 5_000, `access reply to ${token}`);
      },
    };
  }

  const logs = async (resourceId: number) =>
    (await api(owner, 'GET', `/resource-logs?resource=${resourceId}&limit=1000&order=asc`)).json();
  const log = async (id: string | number) => (await api(owner, 'GET', `/resource-logs/${id}`)).json();

  describe('member keys', () => {
    it('puts, reads and deletes the one key of a member; tokens are upper-case hex and unique', async () => {
      const a = await member();
      const b = await member();
      expect((await api(owner, 'GET', `/members/${a.id}/key`)).statusCode).toBe(404);
      const put = await api(owner, 'PUT', `/members/${a.id}/key`, { type: 'nfca', token: '04a1b2c3' });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ member: a.id, type: 'nfca', token: '04A1B2C3', state: 'active' });
      expect((await api(owner, 'GET', `/members/${a.id}/key`)).json()).toMatchObject({ token: '04A1B2C3' });

      // Replacing keeps one key per member.
      const again = await api(owner, 'PUT', `/members/${a.id}/key`, {
        type: 'em4102',
        token: '0A0B0C0D0E',
        state: 'inactive',
      });
      expect(again.json()).toMatchObject({ type: 'em4102', token: '0A0B0C0D0E', state: 'inactive' });

      for (const bad of [
        { type: 'em4102', token: 'XYZ' },
        { type: 'em4102', token: '' },
        { type: 'magstripe', token: 'AB' },
        { type: 'em4102' },
      ]) {
        expect((await api(owner, 'PUT', `/members/${b.id}/key`, bad)).statusCode).toBe(400);
      }
      expect((await api(owner, 'GET', `/members/${b.id}/key`)).statusCode).toBe(404);
      const dup = await api(owner, 'PUT', `/members/${b.id}/key`, { type: 'em4102', token: '0a0b0c0d0e' });
      expect(dup.statusCode).toBe(422);
      expect(dup.json().data).toEqual({ duplicateKey: true });
      expect((await api(owner, 'GET', `/members/${b.id}/key`)).statusCode).toBe(404);

      expect((await api(owner, 'DELETE', `/members/${a.id}/key`)).statusCode).toBe(204);
      expect((await api(owner, 'GET', `/members/${a.id}/key`)).statusCode).toBe(404);
      expect((await api(owner, 'DELETE', `/members/${a.id}/key`)).statusCode).toBe(404);
      // Now the card is free for b.
      expect(
        (await api(owner, 'PUT', `/members/${b.id}/key`, { type: 'em4102', token: '0A0B0C0D0E' })).statusCode,
      ).toBe(200);
    });

    it('POST sets the key like PUT; a PUT without type keeps the type, and a first key needs one', async () => {
      const a = await member();
      const plain = await member();
      const posted = await api(owner, 'POST', `/members/${a.id}/key`, { type: 'hid', token: 'abc123' });
      expect(posted.statusCode).toBe(200);
      expect(posted.json()).toMatchObject({ member: a.id, type: 'hid', token: 'ABC123', state: 'active' });
      expect((await api(owner, 'GET', `/members/${a.id}/key`)).json()).toMatchObject({ type: 'hid' });

      const kept = await api(owner, 'PUT', `/members/${a.id}/key`, { token: 'ABC123', state: 'inactive' });
      expect(kept.statusCode).toBe(200);
      expect(kept.json()).toMatchObject({ type: 'hid', token: 'ABC123', state: 'inactive' });
      const newCard = await api(owner, 'PUT', `/members/${a.id}/key`, { token: 'DEF456' });
      expect(newCard.json()).toMatchObject({ type: 'hid', token: 'DEF456', state: 'active' });

      // No key yet: the type is needed, and nothing is stored.
      const b = await member();
      const untyped = await api(owner, 'POST', `/members/${b.id}/key`, { token: 'FEED01' });
      expect(untyped.statusCode).toBe(400);
      expect(untyped.json().message).toContain('type');
      expect((await api(owner, 'GET', `/members/${b.id}/key`)).statusCode).toBe(404);
      expect(
        (await api(owner, 'POST', `/members/${b.id}/key`, { type: 'nfcz', token: 'FEED01' })).statusCode,
      ).toBe(400);
      // Members may not set keys, not even their own; other accounts do not see the member.
      const key = (await api(owner, 'POST', '/api-keys', { member: plain.id })).json();
      const mine = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token;
      expect(
        (await api(mine, 'POST', `/members/${plain.id}/key`, { type: 'hid', token: 'FEED02' })).statusCode,
      ).toBe(403);
      const other = await t.newAccount('Other keys', `other${randomUUID()}@test.example`);
      expect(
        (await api(other.token, 'POST', `/members/${b.id}/key`, { type: 'hid', token: 'FEED03' })).statusCode,
      ).toBe(404);
      expect((await api(owner, 'GET', `/members/${b.id}/key`)).statusCode).toBe(404);
    });

    it('emits memberKey_created, _updated and _deleted with {key, member}', async () => {
      // A paused webhook queues events without delivering them (tests talk to loopback only);
      // written directly because the API refuses non-public URLs.
      const at = new Date().toISOString();
      const hook = await t.hub.ctx.db
        .insertInto('webhooks')
        .values({
          account: t.owner.accountId,
          ...webhookUrlColumns('https://hooks.example/keys', (plain) => t.hub.ctx.tokens.seal(plain)),
          label: null,
          state: 'paused',
          notes: null,
          categories: JSON.stringify(['memberKey']),
          secretEncrypted: t.hub.ctx.tokens.seal('secret'),
          failingSince: null,
          createdAt: at,
          updatedAt: at,
          updatedBy: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const m = await member({ token: '5A5A5A5A' });
      await api(owner, 'PUT', `/members/${m.id}/key`, {
        type: 'em4102',
        token: '5A5A5A5A',
        state: 'inactive',
      });
      await api(owner, 'DELETE', `/members/${m.id}/key`);
      const events = await t.hub.ctx.db
        .selectFrom('webhook_events')
        .select(['type', 'details'])
        .where('account', '=', t.owner.accountId)
        .where('type', 'like', 'memberKey_%')
        .orderBy('id')
        .execute();
      const mine = events
        .map((e) => ({ type: e.type, details: JSON.parse(e.details) }))
        .filter((e) => e.details.member?.id === m.id);
      expect(mine.map((e) => e.type)).toEqual([
        'memberKey_created',
        'memberKey_updated',
        'memberKey_deleted',
      ]);
      expect(mine[1].details.key).toMatchObject({ token: '5A5A5A5A', state: 'inactive' });
      await t.hub.ctx.db.deleteFrom('webhooks').where('id', '=', hook.id).execute();
    });

    it('lets a member read their own key only, and only admins change keys', async () => {
      const a = await member({ token: 'A1A1A1A1' });
      const b = await member({ token: 'B1B1B1B1' });
      const key = (await api(owner, 'POST', '/api-keys', { member: a.id })).json();
      const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token;
      expect((await api(token, 'GET', `/members/${a.id}/key`)).json()).toMatchObject({ token: 'A1A1A1A1' });
      expect((await api(token, 'GET', `/members/${b.id}/key`)).statusCode).toBe(404);
      expect(
        (await api(token, 'PUT', `/members/${a.id}/key`, { type: 'em4102', token: 'C1' })).statusCode,
      ).toBe(403);
      expect((await api(token, 'DELETE', `/members/${a.id}/key`)).statusCode).toBe(403);
      expect((await api(owner, 'GET', `/members/${a.id}/key`)).json().token).toBe('A1A1A1A1');

      const other = await t.newAccount('Other space', `other${randomUUID()}@test.example`);
      expect((await api(other.token, 'GET', `/members/${a.id}/key`)).statusCode).toBe(404);
      expect(
        (await api(other.token, 'PUT', `/members/${a.id}/key`, { type: 'em4102', token: 'D1' })).statusCode,
      ).toBe(404);
    });

    it('finds the holder of a card with keyType and keyToken', async () => {
      const a = await member({ token: '00AABBCCDD' });
      const find = (q: string) => api(owner, 'GET', `/members?${q}`);
      const hit = await find('keyType=em4102&keyToken=00aabbccdd');
      expect(hit.json().map((m: any) => m.id)).toEqual([a.id]);
      expect(hit.headers['x-total-count']).toBe('1');
      expect((await find('keyToken=00AABBCCDD')).json().map((m: any) => m.id)).toEqual([a.id]);
      expect((await find('keyType=nfca&keyToken=00AABBCCDD')).json()).toEqual([]);
      expect((await find('keyToken=not-hex')).statusCode).toBe(400);
      expect((await api(owner, 'DELETE', `/members/${a.id}/key`)).statusCode).toBe(204);
      const gone = await find('keyType=em4102&keyToken=00aabbccdd');
      expect(gone.json()).toEqual([]);
      expect(gone.headers['x-total-count']).toBe('0');
    });
  });

  describe('taps at a door', () => {
    let door: CardBridge;
    let ada: Awaited<ReturnType<typeof member>>;
    beforeAll(async () => {
      door = await bridge({ name: 'Front door', controlType: 'door' });
      ada = await member({ token: '1111111111' });
    });

    it('opens for a member with a key and a package, and logs allowed', async () => {
      const reply = await door.tap('1111111111');
      expect(reply).toMatchObject({ type: 'allowed', stopped: true, member: { id: ada.id } });
      // The display lines, as the HTTP bridge API sends them: first name, last name.
      expect(reply.messages).toEqual([ada.firstName, ada.lastName]);
      const entry = await log(reply.sessionId!);
      expect(entry).toMatchObject({
        type: 'allowed',
        member: ada.id,
        resource: door.resourceId,
        stopType: 'normal',
      });
      expect(entry.stoppedAt).toBe(entry.createdAt);
    });

    it('denies unknown cards, locked members, inactive keys and members without a package, with a log each', async () => {
      const locked = await member({ token: '2222222222', state: 'locked' });
      const inactive = await member();
      await api(owner, 'PUT', `/members/${inactive.id}/key`, {
        type: 'em4102',
        token: '3333333333',
        state: 'inactive',
      });
      const unpaid = await member({ token: '4444444444', pkg: false });
      const cases: [string, string, number | null][] = [
        ['9999999999', 'unknownKey', null],
        ['2222222222', 'memberInactive', locked.id],
        ['3333333333', 'keyInactive', inactive.id],
        ['4444444444', 'noPackage', unpaid.id],
      ];
      for (const [token, reason, memberId] of cases) {
        const before = (await logs(door.resourceId)).length;
        const reply = await door.tap(token);
        expect(reply).toMatchObject({ type: 'denied', reason });
        expect(reply.messages?.[0]).toBeTruthy();
        const after = await logs(door.resourceId);
        expect(after.length).toBe(before + 1);
        expect(after.at(-1)).toMatchObject({ type: 'denied', reason, member: memberId });
      }
      expect(door.agent.commands).toEqual([]);
    });
  });

  describe('taps at a machine', () => {
    it('starts a session, hands it over to another member, and stops it on the second tap of its member', async () => {
      const laser = await bridge({ name: 'Laser', controlType: 'machine' });
      const a = await member({ token: 'AA00000001' });
      const b = await member({ token: 'BB00000001' });
      const locked = await member({ token: 'CC00000001', state: 'locked' });

      const first = await laser.tap('AA00000001');
      expect(first).toMatchObject({
        type: 'allowed',
        maxDuration: null,
        stopped: false,
        member: { id: a.id },
      });
      const s1 = first.sessionId!;
      expect((await log(s1)).stoppedAt).toBeNull();

      // A denied tap never touches the running session.
      const denied = await laser.tap('CC00000001', s1);
      expect(denied).toMatchObject({ type: 'denied', reason: 'memberInactive', member: { id: locked.id } });
      expect((await log(s1)).stoppedAt).toBeNull();

      const takeover = await laser.tap('BB00000001', s1);
      expect(takeover).toMatchObject({ type: 'allowed', stopped: false, member: { id: b.id } });
      const s2 = takeover.sessionId!;
      expect(s2).not.toBe(s1);
      expect(await log(s1)).toMatchObject({ stopType: 'takeover', member: a.id });
      expect((await log(s1)).stoppedAt).not.toBeNull();
      expect((await log(s2)).stoppedAt).toBeNull();

      const stop = await laser.tap('BB00000001', s2);
      expect(stop).toMatchObject({ type: 'allowed', stopped: true, sessionId: s2 });
      expect(await log(s2)).toMatchObject({ stopType: 'normal', member: b.id });
      expect((await log(s2)).stoppedAt).not.toBeNull();
    });

    it('answers tooManyAttempts after 10 unknown cards in a minute, while known cards still work', async () => {
      const printer = await bridge({ name: 'Printer', controlType: 'machine' });
      await member({ token: 'DD00000001' });
      for (let i = 0; i < 10; i++) {
        expect((await printer.tap(`EE0000000${i}`)).reason).toBe('unknownKey');
      }
      const eleventh = await printer.tap('EE00000010');
      expect(eleventh).toMatchObject({ type: 'denied', reason: 'tooManyAttempts' });
      expect((await logs(printer.resourceId)).at(-1)).toMatchObject({
        type: 'denied',
        reason: 'tooManyAttempts',
      });
      expect((await printer.tap('DD00000001')).type).toBe('allowed');
    });
  });

  describe('key assignments', () => {
    it('gives the next unknown card at the bridge to the member; known cards keep working', async () => {
      const door = await bridge({ name: 'Side door', controlType: 'door' });
      const known = await member({ token: 'F0F0F0F0F0' });
      const newbie = await member();
      // Fabman's two steps: {member}, then PUT the resource.
      const created = await api(owner, 'POST', '/key-assignments', { member: newbie.id });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({
        member: newbie.id,
        resource: null,
        state: 'pending',
        key: null,
      });
      const id = created.json().id;
      const put = await api(owner, 'PUT', `/key-assignments/${id}`, { resource: door.resourceId });
      expect(put.json()).toMatchObject({ resource: door.resourceId, state: 'pending' });

      expect((await door.tap('F0F0F0F0F0')).type).toBe('allowed');
      const assigned = await door.tap('12AB34CD56');
      expect(assigned).toMatchObject({
        type: 'message',
        messages: [`Key assigned to ${newbie.firstName} ${newbie.lastName}`],
      });
      expect((await api(owner, 'GET', `/members/${newbie.id}/key`)).json()).toMatchObject({
        type: 'em4102',
        token: '12AB34CD56',
        state: 'active',
      });
      expect((await api(owner, 'GET', `/key-assignments/${id}`)).json()).toMatchObject({
        state: 'assigned',
        key: { type: 'em4102', token: '12AB34CD56' },
      });
      expect((await logs(door.resourceId)).at(-1)).toMatchObject({ type: 'keyAssigned', member: newbie.id });
      const next = await door.tap('12AB34CD56');
      expect(next).toMatchObject({ type: 'allowed', member: { id: newbie.id } });
      // Only the first card is taken.
      expect((await door.tap('12AB34CD57')).reason).toBe('unknownKey');
      expect(known.id).toBeGreaterThan(0);
    });

    it('aborts with DELETE, checks its references, and hides other accounts', async () => {
      const door = await bridge({ name: 'Back door', controlType: 'door' });
      const m = await member();
      const res = await api(owner, 'POST', '/key-assignments', { member: m.id, resource: door.resourceId });
      expect(res.statusCode).toBe(201);
      const id = res.json().id;
      expect((await api(owner, 'DELETE', `/key-assignments/${id}`)).statusCode).toBe(204);
      expect((await api(owner, 'GET', `/key-assignments/${id}`)).statusCode).toBe(404);
      expect((await door.tap('77777777')).reason).toBe('unknownKey');
      expect((await api(owner, 'GET', `/members/${m.id}/key`)).statusCode).toBe(404);

      expect(
        (await api(owner, 'POST', '/key-assignments', { member: m.id, resource: 999999 })).statusCode,
      ).toBe(422);
      expect((await api(owner, 'POST', '/key-assignments', { member: 999999 })).statusCode).toBe(404);
      expect((await api(owner, 'POST', '/key-assignments', { member: m.id, colour: 'red' })).statusCode).toBe(
        400,
      );
      const other = await t.newAccount('Elsewhere', `else${randomUUID()}@test.example`);
      const again = (await api(owner, 'POST', '/key-assignments', { member: m.id })).json();
      expect((await api(other.token, 'GET', `/key-assignments/${again.id}`)).statusCode).toBe(404);
      expect((await api(other.token, 'DELETE', `/key-assignments/${again.id}`)).statusCode).toBe(404);
    });
  });

  describe('offline keys', () => {
    it('lists the hashed keys of members allowed on the resource and follows package changes', async () => {
      const door = await bridge({ name: 'Workshop door', controlType: 'door', maxOfflineUsage: 600 });
      const allowed = await member({ token: '5555000001' });
      await member({ token: '5555000002', state: 'locked' });
      await member({ token: '5555000003', pkg: false });
      const hash = door.hash;
      const first = await eventually(
        () => door.config()?.offlineKeys.includes(hash('5555000001')) && door.config(),
        5_000,
        'offline key in the retained config',
      );
      expect(first.offlineKeys).not.toContain(hash('5555000002'));
      expect(first.offlineKeys).not.toContain(hash('5555000003'));
      // The owner (no key) is not listed; nothing but hashes travels.
      expect(first.offlineKeys.every((k: string) => /^[0-9a-f]{64}$/.test(k))).toBe(true);

      expect(
        (await api(owner, 'DELETE', `/members/${allowed.id}/packages/${allowed.memberPackage}`)).statusCode,
      ).toBe(204);
      const second = await eventually(
        () => (door.config()?.offlineKeys.includes(hash('5555000001')) === false ? door.config() : null),
        5_000,
        'offline key removed',
      );
      expect(second!.configVersion).toBeGreaterThan(first.configVersion);
      expect((await door.tap('5555000001')).reason).toBe('noPackage');
    });

    it('follows permissions by resource type and by resource, and the training a resource requires', async () => {
      const lasers = (await api(owner, 'POST', '/resource-types', { name: 'Laser cutters' })).json().id;
      const laser = await bridge({
        name: 'Laser',
        controlType: 'machine',
        type: lasers,
        requiresTraining: true,
      });
      const shed = await bridge({ name: 'Shed', controlType: 'door' });
      const byType = (await api(owner, 'POST', '/packages', { name: 'Lasers only' })).json().id;
      await api(owner, 'POST', `/packages/${byType}/permissions`, {
        type: 'resourceType',
        resourceType: lasers,
      });
      const byResource = (await api(owner, 'POST', '/packages', { name: 'Shed only' })).json().id;
      await api(owner, 'POST', `/packages/${byResource}/permissions`, {
        type: 'resource',
        resource: shed.resourceId,
      });
      const course = (
        await api(owner, 'POST', '/training-courses', {
          title: 'Laser safety',
          resources: [laser.resourceId],
        })
      ).json().id;

      const trained = await member({ token: '5555000301', pkg: false });
      await api(owner, 'POST', `/members/${trained.id}/packages`, { package: byType });
      expect(
        (await api(owner, 'POST', `/members/${trained.id}/trainings`, { trainingCourse: course })).statusCode,
      ).toBe(201);
      // Trained, but for another resource only.
      const untrained = await member({ token: '5555000302', pkg: false });
      await api(owner, 'POST', `/members/${untrained.id}/packages`, { package: byType });
      const induction = (
        await api(owner, 'POST', '/training-courses', {
          title: 'Shed induction',
          resources: [shed.resourceId],
        })
      ).json().id;
      await api(owner, 'POST', `/members/${untrained.id}/trainings`, { trainingCourse: induction });
      const shedOnly = await member({ token: '5555000303', pkg: false });
      await api(owner, 'POST', `/members/${shedOnly.id}/packages`, { package: byResource });

      await refreshBridgeConfigs(t.hub.ctx, t.owner.accountId);
      const laserKeys = await eventually(
        () =>
          laser.config()?.offlineKeys.includes(laser.hash('5555000301')) ? laser.config()?.offlineKeys : null,
        5_000,
        'the trained member on the laser',
      );
      expect(laserKeys).not.toContain(laser.hash('5555000302'));
      expect(laserKeys).not.toContain(laser.hash('5555000303'));
      const shedKeys = await eventually(
        () =>
          shed.config()?.offlineKeys.includes(shed.hash('5555000303')) ? shed.config()?.offlineKeys : null,
        5_000,
        'the shed member on the shed',
      );
      expect(shedKeys).not.toContain(shed.hash('5555000301'));
      expect(shedKeys).not.toContain(shed.hash('5555000302'));
    });

    it('adds a key whose package starts tomorrow once the space reaches that date, with no write', async () => {
      const door = await bridge({ name: 'Night door', controlType: 'door', maxOfflineUsage: 600 });
      const m = await member({ token: '5555000101', pkg: false });
      const zone = (await api(owner, 'GET', `/spaces/${t.owner.spaceId}`)).json().timezone as string;
      const tomorrow = localDate(new Date(clock.now().getTime() + 86_400_000), zone);
      const added = await api(owner, 'POST', `/members/${m.id}/packages`, {
        package: everything,
        fromDate: tomorrow,
      });
      expect(added.statusCode).toBe(201);
      const hash = door.hash('5555000101');
      await t.hub.localDates.check();
      // Let the refreshes the writes above started finish and reach the bridge.
      await refreshBridgeConfigs(t.hub.ctx, t.owner.accountId);
      const published = await t.hub.ctx.db
        .selectFrom('bridges')
        .select('configVersion')
        .where('resource', '=', door.resourceId)
        .executeTakeFirstOrThrow();
      const before = await eventually(
        () => (door.config()?.configVersion === published.configVersion ? door.config() : null),
        5_000,
        'the latest config',
      );
      expect(before!.offlineKeys).not.toContain(hash);
      try {
        shift = 86_400_000;
        await t.hub.localDates.check();
        const after = await eventually(
          () => (door.config()?.offlineKeys.includes(hash) ? door.config() : null),
          5_000,
          'the key in the config after midnight',
        );
        expect(after!.configVersion).toBeGreaterThan(before!.configVersion);
        expect((await door.tap('5555000101')).type).toBe('allowed');
      } finally {
        shift = 0;
        await t.hub.localDates.check();
      }
    });

    it("a superuser's change to another account's member reaches that account's bridges", async () => {
      const door = await bridge({ name: 'Side door', controlType: 'door', maxOfflineUsage: 600 });
      const m = await member({ token: '5555000201' });
      const hash = door.hash('5555000201');
      await eventually(() => door.config()?.offlineKeys.includes(hash), 5_000, 'the key in the config');
      const root = await t.newAccount('Operators', `root${randomUUID()}@test.example`);
      await t.hub.ctx.db
        .updateTable('members')
        .set({ superuser: 1 })
        .where('id', '=', root.memberId)
        .execute();
      t.hub.ctx.auth.invalidate();
      expect(
        (await api(root.token, 'DELETE', `/members/${m.id}/packages/${m.memberPackage}`)).statusCode,
      ).toBe(204);
      await eventually(
        () => door.config()?.offlineKeys.includes(hash) === false,
        5_000,
        "the key gone from the other account's bridge",
      );
    });

    it('carries the keys of more than 500 members, in a config larger than other messages', async () => {
      const door = await bridge({ name: 'Big door', controlType: 'door', maxOfflineUsage: 600 });
      const at = new Date().toISOString();
      const tokens: string[] = [];
      await t.hub.ctx.db.transaction().execute(async (trx) => {
        for (let batch = 0; batch < 4; batch++) {
          const members = await trx
            .insertInto('members')
            .values(
              Array.from({ length: 300 }, (_, i) => ({
                account: t.owner.accountId,
                space: t.owner.spaceId,
                firstName: 'Many',
                lastName: `Member${batch * 300 + i}`,
                emailAddress: `many${batch * 300 + i}-${randomUUID()}@test.example`,
                emailKey: `many${batch * 300 + i}-${randomUUID()}@test.example`,
                createdAt: at,
                updatedAt: at,
              })) as any,
            )
            .returning('id')
            .execute();
          const keys = members.map((m, i) => {
            const token = (0x6000000 + batch * 300 + i).toString(16).toUpperCase();
            tokens.push(token);
            return {
              account: t.owner.accountId,
              member: m.id,
              type: 'em4102',
              token,
              createdAt: at,
              updatedAt: at,
            };
          });
          await trx
            .insertInto('member_keys')
            .values(keys as any)
            .execute();
          await trx
            .insertInto('member_packages')
            .values(
              members.map((m) => ({
                account: t.owner.accountId,
                member: m.id,
                package: everything,
                fromDate: '2020-01-01',
                setupCharged: 1,
                billedUntil: '2999-01-01',
                createdAt: at,
                updatedAt: at,
              })) as any,
            )
            .execute();
        }
      });
      await refreshBridgeConfigs(t.hub.ctx, t.owner.accountId);
      const config = await eventually(
        () => ((door.config()?.offlineKeys.length ?? 0) >= 1200 ? door.config() : null),
        10_000,
        'a config with all the keys',
      );
      const hashes = new Set(config!.offlineKeys);
      expect(tokens.every((token) => hashes.has(door.hash(token)))).toBe(true);
      expect(JSON.stringify(config).length).toBeGreaterThan(64 * 1024);
    });
  });
});
