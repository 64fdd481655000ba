import { Writable } from 'node:stream';
import { createLogger } from '@makerspace/shared';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { shadowCommand } from '../../hub/src/shadow/shadow-command.js';
import { ApiImport } from '../../hub/src/import/api-import.js';
import { ApiSource, sourceBase } from '../../hub/src/import/api-source.js';
import { saveImportedId } from '../../hub/src/import/import-ids.repository.js';
import { defaultIdTranslation, sameIds } from '../../hub/src/shadow/id-map.js';
import { runShadow, shadowReport, sourceName } from '../../hub/src/shadow/shadow.js';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { fastTuning, waitFor } from './webhooks-helpers.js';

/**
 * Shadow mode against a second hub started here (standing in for the server a space moves
 * from): its logged decisions were made under other rules; ours are asked for the same member,
 * resource and moment, and exactly the decisions that differ are reported, once.
 */
describeEachDialect('shadow mode against another server’s decisions', (dialect) => {
  let ours: TestHub;
  let theirs: TestHub;
  let theirUrl = '';
  const ids: Record<string, number> = {};
  let theirNow = new Date('2026-03-01T00:00:00.000Z');
  const agents: FakeAgent[] = [];
  const codes: Record<number, string> = {};
  const tokens: Record<number, string> = {};
  /** What our hub logs (debug and up): a receiver's secret must never be among it. */
  const ourLog: string[] = [];

  const api = (t: TestHub, method: string, url: string, payload?: unknown) =>
    t.call(t.owner.token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const made = async (t: TestHub, url: string, payload: unknown) => {
    const res = await api(t, 'POST', url, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as number;
  };

  /** The same space, resources and members on both servers, in the same order (the same ids). */
  async function seed(t: TestHub) {
    const space = (await api(t, 'GET', `/spaces/${t.owner.spaceId}`)).json();
    await api(t, 'PUT', `/spaces/${space.id}`, { lockVersion: space.lockVersion, timezone: 'Europe/Vienna' });
    const resource = async (body: Record<string, unknown>) => {
      const res = await api(t, 'POST', '/resources', { space: space.id, ...body });
      expect(res.statusCode, res.body).toBe(201);
      codes[res.json().id] = res.json().switchOnCode;
      return res.json().id as number;
    };
    const door = await resource({ name: 'Front door', controlType: 'door' });
    const laser = await resource({ name: 'Laser', controlType: 'machine' });
    const members: Record<string, number> = {};
    for (const name of ['Ada', 'Ben', 'Dan'])
      members[name] = await made(t, '/members', {
        firstName: name,
        lastName: 'Shadow',
        emailAddress: `${name}@shadow.example`,
      });
    return { door, laser, ...members };
  }

  /** A member switches a resource on at the other server at `at`: its own policy decides and logs. */
  async function theirDecision(resource: number, member: number, at: string, expected: 'allowed' | 'denied') {
    theirNow = new Date(at);
    const res = await theirs.call(tokens[member], {
      method: 'POST',
      url: `/api/v1/resources/${resource}/switch-on`,
      payload: { code: codes[resource] },
    });
    expect(res.statusCode, res.body).toBe(expected === 'allowed' ? 200 : 403);
    if (expected === 'allowed' && resource === ids.laser)
      await api(theirs, 'POST', `/resources/${resource}/bridge/switch-off`);
  }

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        ourLog.push(String(chunk));
        done();
      },
    });
    ours = await startTestHub(dialect, {
      logger: createLogger({ name: 'test-hub', level: 'debug', destination: sink }),
    });
    // Their webhooks may deliver over plain HTTP to our hub on 127.0.0.1.
    theirs = await startTestHub('sqlite', {
      clock: { now: () => theirNow },
      settings: { webhookAllowInsecure: true, webhookTuning: fastTuning },
    });
    const listening = await theirs.listen();
    theirUrl = listening.httpUrl;
    Object.assign(ids, await seed(ours));
    expect(await seed(theirs)).toEqual(ids);
    // Their bridges and members' tokens, and their rules: always open; only Ada holds a package.
    for (const r of [ids.door, ids.laser]) {
      await api(theirs, 'PUT', `/resources/${r}/bridge`, {});
      const key = (await api(theirs, 'GET', `/resources/${r}/bridge/api-key`)).json().apiKey;
      agents.push(await connectFakeAgent(listening.mqttUrl, r, key));
    }
    for (const m of [ids.Ada, ids.Ben, ids.Dan]) {
      const key = (await api(theirs, 'POST', '/api-keys', { member: m })).json();
      tokens[m] = (await api(theirs, 'GET', `/api-keys/${key.id}/token`)).json().token;
    }
    const theirPackage = await made(theirs, '/packages', { name: 'Everything' });
    await made(theirs, `/packages/${theirPackage}/permissions`, { type: 'everything' });
    await made(theirs, `/members/${ids.Ada}/packages`, { package: theirPackage, fromDate: '2026-01-01' });
    // Our rules: Ada and Ben hold a package for everything; the space is open Mon-Fri 09:00-18:00.
    const pkg = await made(ours, '/packages', { name: 'Full' });
    await made(ours, `/packages/${pkg}/permissions`, { type: 'everything' });
    for (const m of [ids.Ada, ids.Ben])
      await made(ours, `/members/${m}/packages`, { package: pkg, fromDate: '2026-01-01' });
    await api(
      ours,
      'PUT',
      `/spaces/${ours.owner.spaceId}/opening-hours`,
      [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, fromTime: '09:00', untilTime: '18:00' })),
    );
    // Their decisions (Vienna is UTC+1 until 29 March): two we decide differently.
    await theirDecision(ids.door, ids.Dan, '2026-02-02T11:00:00.000Z', 'denied'); // before --since: not compared
    await theirDecision(ids.door, ids.Ada, '2026-03-23T09:00:00.000Z', 'allowed'); // Mon 10:00: ours too
    await theirDecision(ids.door, ids.Dan, '2026-03-23T10:00:00.000Z', 'denied'); // noPackage: ours too
    await theirDecision(ids.laser, ids.Ben, '2026-03-24T09:00:00.000Z', 'denied'); // noPackage: ours allows him
    await theirDecision(ids.laser, ids.Ada, '2026-03-25T11:00:00.000Z', 'allowed'); // Wed 12:00: ours too
    await theirDecision(ids.door, ids.Ada, '2026-03-28T10:00:00.000Z', 'allowed'); // Sat 11:00: ours closed
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
    await ours?.close();
    await theirs?.close();
  });

  const run = () =>
    runShadow({
      db: ours.hub.ctx.db,
      policy: ours.hub.ctx.policy,
      clock: ours.hub.ctx.clock,
      account: ours.owner.accountId,
      source: { url: `${theirUrl}/`, token: theirs.owner.token },
      since: '2026-03-01T00:00:00.000Z',
      ids: sameIds(ours.hub.ctx.db, ours.owner.accountId),
      pageSize: 2,
    });

  it('reports agreement per resource and exactly the disagreements, with both reasons', async () => {
    expect(await run()).toEqual({ compared: 5, agreed: 3, disagreed: 2 });
    const report = (await api(ours, 'GET', '/shadow-report')).json();
    expect(report.resources.map((r: any) => [r.resourceName, r.agreed, r.compared])).toEqual([
      ['Front door', 2, 3],
      ['Laser', 1, 2],
    ]);
    expect(report.disagreements).toEqual([
      expect.objectContaining({
        at: '2026-03-28T10:00:00.000Z',
        memberName: 'Ada Shadow',
        resourceName: 'Front door',
        theirs: 'allowed',
        theirReason: null,
        ours: 'denied',
        ourReason: 'openingHours',
      }),
      expect.objectContaining({
        at: '2026-03-24T09:00:00.000Z',
        memberName: 'Ben Shadow',
        resourceName: 'Laser',
        theirs: 'denied',
        theirReason: 'noPackage',
        ours: 'allowed',
        ourReason: null,
      }),
    ]);
  });

  it('keeps its position: a second run compares nothing again, a later one only what is new', async () => {
    expect(await run()).toEqual({ compared: 0, agreed: 0, disagreed: 0 });
    // Logged late (a bridge that was offline), before the latest compared decision: still found.
    await theirDecision(ids.door, ids.Ben, '2026-03-26T09:00:00.000Z', 'denied');
    const out: string[] = [];
    const code = await shadowCommand({
      db: ours.hub.ctx.db,
      policy: ours.hub.ctx.policy,
      clock: ours.hub.ctx.clock,
      url: theirUrl,
      token: theirs.owner.token,
      account: ours.owner.accountId,
      out: (text) => out.push(text),
    });
    expect(code).toBe(0);
    expect(out.join('')).toContain('compared 1 new decisions: 0 agree, 1 disagree');
    expect(out.join('')).toContain('Ben Shadow at Front door: theirs denied (noPackage), ours allowed');
    const report = await shadowReport(ours.hub.ctx.db, ours.owner.accountId);
    expect(report.disagreements).toHaveLength(3);
    expect(report.resources.find((r) => r.resourceName === 'Front door')).toMatchObject({
      compared: 4,
      agreed: 2,
    });
  });

  it('a refused token or an unreachable server says so and compares nothing', async () => {
    const out: string[] = [];
    const base = {
      db: ours.hub.ctx.db,
      policy: ours.hub.ctx.policy,
      clock: ours.hub.ctx.clock,
      account: ours.owner.accountId,
      out: (text: string) => out.push(text),
    };
    expect(await shadowCommand({ ...base, url: theirUrl, token: 'not-a-token' })).toBe(1);
    expect(out.join('')).toContain('refused the token (401)');
    expect(await shadowCommand({ ...base, url: 'http://127.0.0.1:9', token: theirs.owner.token })).toBe(1);
    expect(out.join('')).toContain('cannot reach http://127.0.0.1:9');
    expect((await shadowReport(ours.hub.ctx.db, ours.owner.accountId)).disagreements).toHaveLength(3);
  });

  it('translates their ids through the moving-in importer’s map once members were imported from them', async () => {
    const db = ours.hub.ctx.db;
    const account = ours.owner.accountId;
    // The importer and shadow mode name a source alike, however its address is written.
    const source = sourceName('http://127.0.0.1:1/');
    expect(source).toBe(sourceBase('http://127.0.0.1:1'));
    expect(sourceName('http://127.0.0.1:1/api/v1/')).toBe(source);
    const before = await defaultIdTranslation(db, account, source);
    expect(await before.member(ids.Ada)).toBe(ids.Ada); // never imported from: ids as they are
    const at = '2026-03-01T00:00:00.000Z';
    const entry = { account, source, fingerprint: 'f' };
    await saveImportedId(db, { ...entry, kind: 'member', oldId: '4711', newId: ids.Ben }, at);
    await saveImportedId(db, { ...entry, kind: 'resource', oldId: '12', newId: ids.laser }, at);
    const after = await defaultIdTranslation(db, account, source);
    expect(await after.member(4711)).toBe(ids.Ben);
    expect(await after.resource(12)).toBe(ids.laser);
    // A member the import did not bring has no counterpart, even where an id matches one here.
    expect(await after.member(ids.Ada)).toBeNull();
    expect(await after.resource(ids.door)).toBeNull();
  });

  it('follows their webhook: a decision there is compared at once, once, and bad events change nothing', async () => {
    const ourUrl = (await ours.listen()).httpUrl;
    const report = async () => (await api(ours, 'GET', '/shadow-report')).json();
    const before = await report();
    // The admin makes the receiver URL here and pastes it into their webhook settings.
    const made = await api(ours, 'POST', '/shadow-receivers', { source: theirUrl });
    expect(made.statusCode, made.body).toBe(201);
    const receiverUrl = `${ourUrl}${new URL(made.json().url).pathname}`;
    expect(made.json().source).toBe(sourceName(theirUrl));
    const hook = await api(theirs, 'POST', '/webhooks', { url: receiverUrl, categories: ['resourceLog'] });
    expect(hook.statusCode, hook.body).toBe(201);

    // Mon 30 March 11:00 in Vienna: Ben has no package there; ours lets him in (no poller runs).
    await theirDecision(ids.door, ids.Ben, '2026-03-30T09:00:00.000Z', 'denied');
    const found = await waitFor('the webhook’s decision in our report', async () =>
      (await report()).disagreements.find((d: any) => d.at === '2026-03-30T09:00:00.000Z'),
    );
    expect(found).toMatchObject({
      memberName: 'Ben Shadow',
      resourceName: 'Front door',
      theirs: 'denied',
      theirReason: 'noPackage',
      ours: 'allowed',
    });
    // An allowed session at the laser comes as created, then updated when it stops: compared once.
    await theirDecision(ids.laser, ids.Ada, '2026-03-30T10:00:00.000Z', 'allowed');
    const events = await waitFor('both laser events delivered', async () => {
      const list = (await api(theirs, 'GET', `/webhooks/${hook.json().id}/events`)).json();
      const delivered = list.filter((e: any) => e.delivery?.state === 'delivered');
      return delivered.length >= 3 ? list : null;
    });
    const laser = (await report()).resources.find((r: any) => r.resourceName === 'Laser');
    expect(laser).toMatchObject({ compared: 3, agreed: 2 });

    // A replayed delivery of the door event is taken, and not compared again.
    const doorEvent = events.find(
      (e: any) => e.type === 'resourceLog_created' && e.details.log.createdAt === '2026-03-30T09:00:00.000Z',
    );
    const post = (url: string, body: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const event = JSON.stringify({
      id: doorEvent.id,
      type: doorEvent.type,
      createdAt: doorEvent.createdAt,
      details: doorEvent.details,
    });
    const replay = await post(receiverUrl, event);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({
      compared: false,
      note: expect.stringContaining('compared already'),
    });
    const after = await report();
    expect(after.disagreements).toHaveLength(before.disagreements.length + 1);
    expect(after.resources.find((r: any) => r.resourceName === 'Front door').compared).toBe(
      before.resources.find((r: any) => r.resourceName === 'Front door').compared + 1,
    );
    // The poller finds nothing new: what the webhook compared counts for it too.
    expect(await run()).toEqual({ compared: 0, agreed: 0, disagreed: 0 });

    // Bad payloads: 400 with what is wrong, nothing stored.
    const bad = await post(
      receiverUrl,
      JSON.stringify({ type: 'resourceLog_created', details: { log: { id: 'x' } } }),
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('details.log');
    expect((await post(receiverUrl, '{not json')).status).toBe(400);
    const noLog = await post(receiverUrl, JSON.stringify({ type: 'resourceLog_created', details: {} }));
    expect(noLog.status).toBe(400);
    const noDate = JSON.parse(event);
    noDate.details.log = { ...noDate.details.log, id: 999_999, createdAt: 'yesterday' };
    expect((await post(receiverUrl, JSON.stringify(noDate))).status).toBe(400);
    // Another event type is taken and changes nothing (their server would retry a refusal).
    const other = await post(
      receiverUrl,
      JSON.stringify({ type: 'member_updated', details: { member: {} } }),
    );
    expect(other.status).toBe(200);
    expect(await other.json()).toMatchObject({ compared: false });
    expect(await report()).toEqual(after);

    // A wrong secret or receiver is refused; a rotated URL replaces the old one.
    const fresh = JSON.parse(event);
    fresh.details.log = { ...fresh.details.log, id: 999_998 };
    expect((await post(`${receiverUrl.slice(0, -2)}xx`, JSON.stringify(fresh))).status).toBe(404);
    expect(
      (await post(receiverUrl.replace(/webhook\/\d+/, 'webhook/999'), JSON.stringify(fresh))).status,
    ).toBe(404);
    const listed = (await api(ours, 'GET', '/shadow-receivers')).json();
    expect(listed).toEqual([
      expect.objectContaining({ id: made.json().id, lastEventAt: expect.any(String) }),
    ]);
    expect(listed[0].url).toBeUndefined();
    const rotated = await api(ours, 'POST', `/shadow-receivers/${made.json().id}/rotate`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect((await post(receiverUrl, JSON.stringify(fresh))).status).toBe(404);
    expect(await report()).toEqual(after);
    const newUrl = `${ourUrl}${new URL(rotated.json().url).pathname}`;
    const taken = await post(newUrl, JSON.stringify(fresh));
    expect(taken.status).toBe(200);
    expect(await taken.json()).toEqual({ compared: true, agrees: false });
    // Neither secret reached the log; the database holds only their hashes.
    const secrets = [receiverUrl, newUrl].map((u) => u.split('/').pop() as string);
    expect(ourLog.length).toBeGreaterThan(0);
    expect(ourLog.join('')).not.toMatch(new RegExp(secrets.join('|')));
    const stored = JSON.stringify(await ours.hub.ctx.db.selectFrom('shadow_receivers').selectAll().execute());
    for (const secret of secrets) expect(stored).not.toContain(secret);
  });
  it('after the moving-in importer brought their records under other ids, only what we changed disagrees', async () => {
    // A hub with records of its own: what the import brings gets other ids than theirs.
    const moved = await startTestHub(dialect);
    try {
      const call = (method: string, url: string, payload?: unknown) =>
        moved.call(moved.owner.token, {
          method: method as any,
          url: `/api/v1${url}`,
          ...(payload === undefined ? {} : { payload: payload as any }),
        });
      for (const name of ['Workbench', 'Saw'])
        expect(
          (await call('POST', '/resources', { space: moved.owner.spaceId, name, controlType: 'machine' }))
            .statusCode,
        ).toBe(201);
      for (const name of ['Zoe', 'Yan'])
        expect(
          (
            await call('POST', '/members', {
              firstName: name,
              lastName: 'Here',
              emailAddress: `${name}@here.example`,
            })
          ).statusCode,
        ).toBe(201);
      const caller = {
        memberId: moved.owner.memberId,
        accountId: moved.owner.accountId,
        spaceId: moved.owner.spaceId,
        privileges: 'owner' as const,
        superuser: false,
        via: 'apiKey' as const,
        apiKeyId: null,
        sessionId: null,
      };
      await new ApiImport(
        new ApiSource({ url: theirUrl, token: theirs.owner.token, pageSize: 50 }),
        { ctx: moved.hub.ctx, caller },
        { dryRun: false },
      ).run();
      const members = (await call('GET', '/members?limit=50')).json();
      const ada = members.find((m: any) => m.firstName === 'Ada');
      expect(ada.id).not.toBe(ids.Ada);
      // What we change after the import: Ada's package ends on Friday 27 March.
      const held = (await call('GET', `/members/${ada.id}/packages`)).json();
      expect(held).toHaveLength(1);
      const ended = await call('PUT', `/members/${ada.id}/packages/${held[0].id}`, {
        lockVersion: held[0].lockVersion,
        untilDate: '2026-03-27',
      });
      expect(ended.statusCode, ended.body).toBe(200);

      const db = moved.hub.ctx.db;
      const account = moved.owner.accountId;
      const result = await runShadow({
        db,
        policy: moved.hub.ctx.policy,
        clock: moved.hub.ctx.clock,
        account,
        source: { url: theirUrl, token: theirs.owner.token },
        since: '2026-03-01T00:00:00.000Z',
        ids: await defaultIdTranslation(db, account, sourceName(theirUrl)),
      });
      const report = await shadowReport(db, account);
      // Every decision of theirs from March found its member and resource here.
      expect(report.resources.map((r) => r.resourceName).sort()).toEqual(['Front door', 'Laser']);
      expect(result.compared).toBe(report.resources.reduce((n, r) => n + r.compared, 0));
      // Ada's decisions after her package ended, and no other.
      expect(result.disagreed).toBe(2);
      expect(
        report.disagreements.map((d) => [d.at, d.memberName, d.resourceName, d.theirs, d.ours, d.ourReason]),
      ).toEqual([
        ['2026-03-30T10:00:00.000Z', 'Ada Shadow', 'Laser', 'allowed', 'denied', 'noPackage'],
        ['2026-03-28T10:00:00.000Z', 'Ada Shadow', 'Front door', 'allowed', 'denied', 'noPackage'],
      ]);
    } finally {
      await moved.close();
    }
  });
});
