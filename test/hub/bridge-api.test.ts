import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshBridgeConfigs } from '../../hub/src/resources/bridge-config.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

describeEachDialect("Fabman's HTTP bridge API: heartbeat, access, stop", (dialect) => {
  let t: TestHub;
  let owner: string;
  let everything: number;
  // The system clock, moved forward by `shift` ms when a test needs time to pass.
  let shift = 0;
  const clock = { now: () => new Date(Date.now() + shift) };

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock });
    owner = t.owner.token;
    everything = (await api(owner, 'POST', '/packages', { name: 'Full membership' })).json().id;
    await api(owner, 'POST', `/packages/${everything}/permissions`, { type: 'everything' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const api = (token: string | null, method: string, url: string, payload?: unknown) =>
    token === null
      ? t.app.inject({ method: method as any, url: `/api/v1${url}`, payload: payload as any })
      : t.call(token, {
          method: method as any,
          url: `/api/v1${url}`,
          ...(payload === undefined ? {} : { payload: payload as any }),
        });

  async function resource(body: Record<string, unknown>) {
    const r = (await api(owner, 'POST', '/resources', { space: t.owner.spaceId, ...body })).json();
    expect((await api(owner, 'PUT', `/resources/${r.id}/bridge`, { heartbeatInterval: 30 })).statusCode).toBe(
      200,
    );
    const apiKey = (await api(owner, 'GET', `/resources/${r.id}/bridge/api-key`)).json().apiKey as string;
    return { id: r.id as number, name: r.name as string, apiKey };
  }

  async function member(options: { token?: string; pkg?: boolean } = {}) {
    const email = `ada${randomUUID()}@test.example`;
    const m = (
      await api(owner, 'POST', '/members', { firstName: 'Ada', lastName: 'Bridge', emailAddress: email })
    ).json();
    if (options.pkg !== false) await api(owner, 'POST', `/members/${m.id}/packages`, { package: everything });
    if (options.token)
      await api(owner, 'PUT', `/members/${m.id}/key`, { type: 'em4102', token: options.token });
    return { id: m.id as number, email };
  }

  describe('authentication', () => {
    it('takes the bridge API key only: no key, a wrong key or a member token get 401 before the body is read', async () => {
      const door = await resource({ name: 'Front door', controlType: 'door' });
      for (const token of [null, 'not-a-key', owner]) {
        const res = await api(token, 'POST', '/bridge/heartbeat', { configVersion: 'nonsense' });
        expect(res.statusCode).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
      }
      expect(
        (await api(door.apiKey, 'POST', '/bridge/heartbeat', { configVersion: 'nonsense' })).statusCode,
      ).toBe(400);
      // A rotated key stops working at once.
      await api(owner, 'PUT', `/resources/${door.id}/bridge`, { rotateApiKey: true });
      expect((await api(door.apiKey, 'POST', '/bridge/heartbeat', {})).statusCode).toBe(401);
    });
  });

  describe('heartbeat', () => {
    it('answers the config while the bridge holds an older one, and sets the bridge online until it misses three beats', async () => {
      const door = await resource({ name: 'Workshop door', controlType: 'door' });
      await member({ token: '7A7A000001' });
      // Let the config refreshes those writes started finish, so the version holds still.
      await t.hub.accessChanges.settled();
      await refreshBridgeConfigs(t.hub.ctx, t.owner.accountId);
      expect((await api(owner, 'GET', `/resources/${door.id}/bridge`)).json().offline).toBe(true);

      const first = await api(door.apiKey, 'POST', '/bridge/heartbeat', { configVersion: 0, uptime: 12 });
      expect(first.statusCode).toBe(200);
      const config = first.json().config;
      expect(config).toMatchObject({ name: 'Workshop door', controlType: 'door', heartbeatInterval: 30 });
      // The commercial bridge API's shape: cards as the reader sends them, compared as they are.
      expect(config.offlineKeys).toContainEqual({ type: 'em4102', token: '7A7A000001' });
      expect((await api(owner, 'GET', `/resources/${door.id}/bridge`)).json().offline).toBe(false);

      const again = await api(door.apiKey, 'POST', '/bridge/heartbeat', {
        configVersion: config.configVersion,
      });
      expect(again.json()).toEqual({ config: null });

      // 2 missed beats: still online; 3: offline.
      shift = 65_000;
      await t.hub.heartbeats.check();
      expect((await api(owner, 'GET', `/resources/${door.id}/bridge`)).json().offline).toBe(false);
      shift = 95_000;
      await t.hub.heartbeats.check();
      expect((await api(owner, 'GET', `/resources/${door.id}/bridge`)).json().offline).toBe(true);
      shift = 0;
    });
  });

  describe('remote switch-on of a bridge on HTTP only', () => {
    it('the verdict and switch-on agree: online by its heartbeats, but used at its reader (noRemoteSwitch), not "offline"', async () => {
      const door = await resource({ name: 'Garden door', controlType: 'door' });
      const ada = await member();
      const key = (await api(owner, 'POST', '/api-keys', { member: ada.id })).json();
      const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token as string;
      const code = (await api(owner, 'GET', `/resources/${door.id}`)).json().switchOnCode as string;
      const check = () => api(token, 'GET', `/resources/${door.id}/access-check`);

      // Before its first heartbeat the bridge is offline, and both say so.
      expect((await check()).json()).toMatchObject({ reason: 'bridgeOffline' });
      const offline = await api(token, 'POST', `/resources/${door.id}/switch-on`, { code });
      expect(offline.statusCode).toBe(503);
      expect(offline.json().data.reason).toBe('bridgeOffline');

      expect((await api(door.apiKey, 'POST', '/bridge/heartbeat', { configVersion: 0 })).statusCode).toBe(
        200,
      );
      const verdict = (await check()).json();
      expect(verdict).toMatchObject({
        reason: 'noRemoteSwitch',
        message: expect.stringContaining('use it at its reader'),
        status: { online: true },
      });
      const refused = await api(token, 'POST', `/resources/${door.id}/switch-on`, { code });
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ message: verdict.message, data: { reason: 'noRemoteSwitch' } });
      // The refusal is in the resource's log, with why.
      const logs = (await api(owner, 'GET', `/resource-logs?resource=${door.id}`)).json();
      expect(logs[0]).toMatchObject({ type: 'denied', reason: 'thirdPartyError', member: ada.id });
      expect(logs[0].notes).toContain('HTTP only');
    });
  });

  describe('heartbeatInterval: null', () => {
    it('turns offline detection off for the bridge, and a number turns it on again', async () => {
      const door = await resource({ name: 'Garden door', controlType: 'door' });
      const put = await api(owner, 'PUT', `/resources/${door.id}/bridge`, { heartbeatInterval: null });
      expect(put.statusCode).toBe(200);
      expect(put.json().heartbeatInterval).toBeNull();
      const beat = await api(door.apiKey, 'POST', '/bridge/heartbeat', { configVersion: null });
      expect(beat.json().config.heartbeatInterval).toBeNull();
      shift = 10 * 3_600_000;
      await t.hub.heartbeats.check();
      expect((await api(owner, 'GET', `/resources/${door.id}/bridge`)).json().offline).toBe(false);
      expect(
        (await api(owner, 'PUT', `/resources/${door.id}/bridge`, { heartbeatInterval: 20 })).json()
          .heartbeatInterval,
      ).toBe(20);
      await t.hub.heartbeats.check();
      expect((await api(owner, 'GET', `/resources/${door.id}/bridge`)).json().offline).toBe(true);
      shift = 0;
    });
  });

  describe('access', () => {
    it('decides by key card (any hex case), e-mail address or member id, and writes the logs', async () => {
      const door = await resource({ name: 'Side door', controlType: 'door' });
      const ada = await member({ token: '7A7A000002' });
      const byCard = await api(door.apiKey, 'POST', '/bridge/access', {
        keys: [{ type: 'em4102', token: '7a7a000002' }],
        configVersion: 0,
      });
      expect(byCard.statusCode).toBe(200);
      expect(byCard.json()).toMatchObject({
        type: 'allowed',
        stopped: true,
        member: { id: ada.id, name: 'Ada Bridge' },
        config: { name: 'Side door' },
      });
      expect(byCard.json()).not.toHaveProperty('id');
      const log = (await api(owner, 'GET', `/resource-logs/${byCard.json().sessionId}`)).json();
      expect(log).toMatchObject({ resource: door.id, type: 'allowed', member: ada.id });

      const byEmail = await api(door.apiKey, 'POST', '/bridge/access', {
        emailAddress: ada.email.toUpperCase(),
      });
      expect(byEmail.json()).toMatchObject({ type: 'allowed', member: { id: ada.id } });
      expect((await api(door.apiKey, 'POST', '/bridge/access', { member: ada.id })).json()).toMatchObject({
        type: 'allowed',
      });

      const unpaid = await member({ pkg: false });
      expect((await api(door.apiKey, 'POST', '/bridge/access', { member: unpaid.id })).json()).toMatchObject({
        type: 'denied',
        reason: 'noPackage',
      });
      const unknownCard = await api(door.apiKey, 'POST', '/bridge/access', {
        keys: [{ type: 'em4102', token: 'FFFF0001' }],
      });
      expect(unknownCard.json()).toMatchObject({ type: 'denied', reason: 'unknownKey' });

      // A member of another account is unknown here.
      const other = await t.newAccount('Elsewhere', `else${randomUUID()}@test.example`);
      const stranger = await api(door.apiKey, 'POST', '/bridge/access', { member: other.memberId });
      expect(stranger.json()).toMatchObject({ type: 'denied', reason: 'unknownMember' });
      const logs = (await api(owner, 'GET', `/resource-logs?resource=${door.id}&limit=100`)).json();
      expect(logs.map((l: { reason: string | null }) => l.reason).sort()).toEqual(
        ['noPackage', 'unknownKey', 'unknownMember', null, null, null].sort(),
      );
    });

    it('refuses bodies that name nobody or several at once, changing nothing', async () => {
      const door = await resource({ name: 'Back door', controlType: 'door' });
      const ada = await member({ token: '7A7A000003' });
      for (const body of [
        {},
        { keys: [{ type: 'em4102', token: '7A7A000003' }], member: ada.id },
        { keys: [] },
        { keys: [{ type: 'em4102', token: 'XYZ' }] },
        { member: 'one' },
      ]) {
        const res = await api(door.apiKey, 'POST', '/bridge/access', body);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      }
      expect((await api(owner, 'GET', `/resource-logs?resource=${door.id}`)).json()).toEqual([]);
    });
  });

  describe('stop', () => {
    it("ends a machine session with its idle time and metadata, bills it, and adds the bridge's charge once", async () => {
      const printer = await resource({ name: 'Printer', controlType: 'machine' });
      const ada = await member({ token: '7A7A000004' });
      const access = await api(printer.apiKey, 'POST', '/bridge/access', {
        keys: [{ type: 'em4102', token: '7A7A000004' }],
      });
      expect(access.json()).toMatchObject({ type: 'allowed', stopped: false });
      const sessionId = access.json().sessionId as string;
      expect((await api(owner, 'GET', `/resources/${printer.id}/bridge`)).json().inUse).toBe(true);

      const stop = {
        stopType: 'normal',
        currentSession: {
          id: sessionId,
          idleDurationSeconds: 60,
          metadata: { material: 'PLA' },
          charge: { price: 2.5, description: '12 g PLA' },
        },
      };
      const stopped = await api(printer.apiKey, 'POST', '/bridge/stop', stop);
      expect(stopped.statusCode).toBe(204);
      expect((await api(owner, 'GET', `/resources/${printer.id}/bridge`)).json().inUse).toBe(false);
      const log = (await api(owner, 'GET', `/resource-logs/${sessionId}`)).json();
      expect(log).toMatchObject({
        stopType: 'normal',
        idleDurationSeconds: 60,
        extraChargeDescription: '12 g PLA',
        extraChargePrice: '2.50',
        metadata: { material: 'PLA' },
      });
      expect(log.stoppedAt).not.toBeNull();

      // Resending the stop changes nothing: one charge.
      expect((await api(printer.apiKey, 'POST', '/bridge/stop', stop)).statusCode).toBe(204);
      const charges = (await api(owner, 'GET', `/charges?member=${ada.id}`)).json();
      expect(charges).toHaveLength(1);
      expect(charges[0]).toMatchObject({
        description: 'Printer: 12 g PLA',
        price: '2.50',
        resourceLog: Number(sessionId),
      });

      const unknown = await api(printer.apiKey, 'POST', '/bridge/stop', {
        stopType: 'normal',
        currentSession: { id: '999999' },
      });
      expect(unknown.statusCode).toBe(404);
      expect(
        (
          await api(printer.apiKey, 'POST', '/bridge/stop', {
            stopType: 'sideways',
            currentSession: { id: sessionId },
          })
        ).statusCode,
      ).toBe(400);
    });
  });

  /** A body as the bridge sends it: JSON, or form-encoded with nested fields in brackets. */
  function encode(encoding: 'json' | 'form', body: Record<string, unknown>) {
    if (encoding === 'json') return { payload: body as any };
    const pairs: string[] = [];
    const walk = (prefix: string, value: unknown) => {
      if (value !== null && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) walk(prefix ? `${prefix}[${k}]` : k, v);
      } else {
        pairs.push(
          `${encodeURIComponent(prefix)}=${encodeURIComponent(value === null ? '' : String(value))}`,
        );
      }
    };
    walk('', body);
    return {
      payload: pairs.join('&'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  }
  const bridgeCall = (
    apiKey: string,
    path: string,
    encoding: 'json' | 'form',
    body: Record<string, unknown>,
  ) => t.call(apiKey, { method: 'POST', url: `/api/v1/bridge/${path}`, ...encode(encoding, body) });

  describe('a stop whose billing fails', () => {
    it('still closes the session and frees the bridge; the bridge gets the error, its retry 204', async () => {
      const printer = await resource({ name: 'Resin printer', controlType: 'machine' });
      await member({ token: '7C7C000001' });
      const access = await api(printer.apiKey, 'POST', '/bridge/access', {
        keys: [{ type: 'em4102', token: '7C7C000001' }],
      });
      const sessionId = access.json().sessionId;
      const stop = {
        stopType: 'normal',
        currentSession: { id: sessionId, charge: { price: 1.5, description: 'Resin' } },
      };
      // Billing cannot write its charges (as with a full disk for that one table).
      await sql`alter table "charges" rename to "charges_away"`.execute(t.hub.ctx.db);
      let failed: Awaited<ReturnType<typeof api>>;
      try {
        failed = await api(printer.apiKey, 'POST', '/bridge/stop', stop);
      } finally {
        await sql`alter table "charges_away" rename to "charges"`.execute(t.hub.ctx.db);
      }
      expect(failed.statusCode).toBe(500);
      const log = (await api(owner, 'GET', `/resource-logs/${sessionId}`)).json();
      expect(log.stoppedAt).not.toBeNull();
      expect(log.stopType).toBe('normal');
      expect((await api(owner, 'GET', `/resources/${printer.id}/bridge`)).json().inUse).toBe(false);
      expect((await api(printer.apiKey, 'POST', '/bridge/stop', stop)).statusCode).toBe(204);
    });
  });

  describe.each(['json', 'form'] as const)('the DIY bridges\u2019 requests, sent as %s', (encoding) => {
    it('heartbeat: config always present (null when current), offline keys as cards of this resource\u2019s members only', async () => {
      // A resource that requires its training: its bridge gets the keys of trained members only.
      const printer = await resource({
        name: `Printer ${encoding}`,
        controlType: 'machine',
        requiresTraining: true,
      });
      const course = (
        await api(owner, 'POST', '/training-courses', {
          title: `Printer ${encoding}`,
          resources: [printer.id],
        })
      ).json().id;
      const ada = await member({ token: encoding === 'json' ? '7B7B000001' : '7B7B000011' });
      expect(
        (await api(owner, 'POST', `/members/${ada.id}/trainings`, { trainingCourse: course })).statusCode,
      ).toBe(201);
      await member({ token: encoding === 'json' ? '7B7B000002' : '7B7B000012' });
      await t.hub.accessChanges.settled();
      await refreshBridgeConfigs(t.hub.ctx, t.owner.accountId);

      // A bridge without a config sends null (or 0), and fields of its own.
      const first = await bridgeCall(printer.apiKey, 'heartbeat', encoding, {
        configVersion: null,
        heartbeatInterval: null,
        uptime: 12,
      });
      expect(first.statusCode).toBe(200);
      const { config } = first.json();
      expect(typeof config.configVersion).toBe('number');
      expect(config).toMatchObject({
        name: `Printer ${encoding}`,
        controlType: 'machine',
        heartbeatInterval: 30,
      });
      expect(config.offlineKeys).toEqual([
        { type: 'em4102', token: encoding === 'json' ? '7B7B000001' : '7B7B000011' },
      ]);

      const current = await bridgeCall(printer.apiKey, 'heartbeat', encoding, {
        configVersion: config.configVersion,
      });
      expect(current.statusCode).toBe(200);
      expect(current.json()).toEqual({ config: null });
      expect(
        (await bridgeCall(printer.apiKey, 'heartbeat', encoding, { configVersion: 0 })).json().config,
      ).toMatchObject({
        configVersion: config.configVersion,
      });
    });

    it('access, update and stop: numeric session ids, messages, a float price rounded to cents, and presence from every request', async () => {
      const token = encoding === 'json' ? '7B7B000003' : '7B7B000013';
      const printer = await resource({ name: `Laser ${encoding}`, controlType: 'machine' });
      const ada = await member({ token });
      await t.hub.accessChanges.settled();
      await refreshBridgeConfigs(t.hub.ctx, t.owner.accountId);
      const version = (await bridgeCall(printer.apiKey, 'heartbeat', encoding, {})).json().config
        .configVersion;
      const bridgeRecord = async () => (await api(owner, 'GET', `/resources/${printer.id}/bridge`)).json();

      // Silent for more than three beats: offline. An access request brings it back.
      shift = 95_000;
      await t.hub.heartbeats.check();
      expect((await bridgeRecord()).offline).toBe(true);
      const access = await bridgeCall(printer.apiKey, 'access', encoding, {
        keys: [{ type: 'em4102', token: token.toLowerCase() }],
        currentSession: { id: 0 },
        previousSession: { id: 0 },
        configVersion: version,
        firmware: 'esp32-1.4',
      });
      expect(access.statusCode).toBe(200);
      const answer = access.json();
      expect(answer.type).toBe('allowed');
      expect(typeof answer.sessionId).toBe('number');
      expect(answer.stopped).toBe(false);
      expect(answer.maxDuration === null || typeof answer.maxDuration === 'number').toBe(true);
      expect(answer.member).toMatchObject({ id: ada.id });
      expect(answer.messages).toEqual(['Ada', 'Bridge']);
      expect(answer).toHaveProperty('config', null);
      expect((await bridgeRecord()).offline).toBe(false);

      // A denial never carries a session id. (Some bridges end the path with a slash.)
      const denied = await bridgeCall(printer.apiKey, 'access/', encoding, {
        keys: [{ type: 'em4102', token: 'FFFF0002' }],
        currentSession: { id: answer.sessionId },
        configVersion: null,
      });
      expect(denied.json()).toMatchObject({ type: 'denied', reason: 'unknownKey' });
      expect(denied.json()).not.toHaveProperty('sessionId');
      expect(typeof denied.json().config).toBe('object');

      // Updates during the session keep the bridge online too.
      shift = 190_000;
      await t.hub.heartbeats.check();
      expect((await bridgeRecord()).offline).toBe(true);
      const update = await bridgeCall(printer.apiKey, 'update', encoding, {
        session: {
          id: answer.sessionId,
          idleDurationSeconds: 30,
          metadata: { job: 'box.gcode' },
          charge: { price: 0.0112, description: 'Laser time' },
        },
      });
      expect(update.statusCode).toBe(204);
      expect((await bridgeRecord()).offline).toBe(false);
      let log = (await api(owner, 'GET', `/resource-logs/${answer.sessionId}`)).json();
      expect(log).toMatchObject({ stoppedAt: null, idleDurationSeconds: 30, metadata: { job: 'box.gcode' } });
      expect(log.extraChargePrice).toBe('0.01');

      // The stop with a float price from the bridge's own pricing, and the session id as a string.
      const stop = await bridgeCall(printer.apiKey, 'stop', encoding, {
        stopType: 'normal',
        currentSession: {
          id: String(answer.sessionId),
          idleDurationSeconds: 45,
          charge: { price: 0.0259245, description: 'Filament' },
        },
        previousSession: { id: 0 },
      });
      expect(stop.statusCode).toBe(204);
      log = (await api(owner, 'GET', `/resource-logs/${answer.sessionId}`)).json();
      expect(log.stoppedAt).not.toBeNull();
      expect(log).toMatchObject({ stopType: 'normal', idleDurationSeconds: 45, extraChargePrice: '0.03' });
      const charges = (await api(owner, 'GET', `/charges?member=${ada.id}`)).json();
      expect(
        charges.map((c: { description: string; price: string }) => [c.description, c.price]),
      ).toContainEqual([`Laser ${encoding}: Filament`, '0.03']);
      expect((await bridgeRecord()).inUse).toBe(false);

      // A stop without a session (id 0) changes nothing; updates of a stopped session neither.
      expect(
        (
          await bridgeCall(printer.apiKey, 'stop', encoding, {
            stopType: 'normal',
            currentSession: { id: 0 },
          })
        ).statusCode,
      ).toBe(204);
      expect(
        (
          await bridgeCall(printer.apiKey, 'update', encoding, {
            session: { id: answer.sessionId, idleDurationSeconds: 99 },
          })
        ).statusCode,
      ).toBe(204);
      expect((await api(owner, 'GET', `/resource-logs/${answer.sessionId}`)).json().idleDurationSeconds).toBe(
        45,
      );
      shift = 0;
    });

    it('refuses a bad value with 400 naming the field (and its errors entry), changing nothing', async () => {
      const printer = await resource({ name: `Mill ${encoding}`, controlType: 'machine' });
      const res = await bridgeCall(printer.apiKey, 'stop', encoding, {
        stopType: 'normal',
        currentSession: { id: 5, charge: { price: 'lots', description: 'x' } },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([expect.objectContaining({ field: 'currentSession.charge.price' })]);
      expect(
        (await bridgeCall(printer.apiKey, 'update', encoding, { session: { id: 999999 } })).statusCode,
      ).toBe(404);
    });
  });
});
