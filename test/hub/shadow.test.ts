import { afterAll, beforeAll, expect, it } from 'vitest';
import { shadowCommand } from '../../hub/src/shadow/shadow-command.js';
import { sameIds } from '../../hub/src/shadow/id-map.js';
import { runShadow, shadowReport } from '../../hub/src/shadow/shadow.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

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
    const door = await made(t, '/resources', { space: space.id, name: 'Front door', controlType: 'door' });
    const laser = await made(t, '/resources', { space: space.id, name: 'Laser', controlType: 'machine' });
    const members: Record<string, number> = {};
    for (const name of ['Ada', 'Ben', 'Dan'])
      members[name] = await made(t, '/members', {
        firstName: name,
        lastName: 'Shadow',
        emailAddress: `${name}@shadow.example`,
      });
    return { door, laser, ...members };
  }

  /** A decision the other server logged. */
  const theirLog = (
    resource: number,
    member: number,
    type: 'allowed' | 'denied',
    createdAt: string,
    reason?: string,
  ) =>
    made(theirs, '/resource-logs', {
      resource,
      member,
      type,
      createdAt,
      ...(type === 'allowed' ? { stoppedAt: createdAt, stopType: 'normal' } : { reason }),
    });

  beforeAll(async () => {
    ours = await startTestHub(dialect);
    theirs = await startTestHub('sqlite');
    theirUrl = (await theirs.listen()).httpUrl;
    Object.assign(ids, await seed(ours));
    expect(await seed(theirs)).toEqual(ids);
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
    await theirLog(ids.door, ids.Ada, 'allowed', '2026-03-23T09:00:00.000Z'); // Mon 10:00: ours too
    await theirLog(ids.door, ids.Ada, 'allowed', '2026-03-28T10:00:00.000Z'); // Sat 11:00: ours closed
    await theirLog(ids.laser, ids.Ben, 'denied', '2026-03-24T09:00:00.000Z', 'noPackage'); // ours: his package
    await theirLog(ids.door, ids.Dan, 'denied', '2026-03-23T10:00:00.000Z', 'noPackage'); // ours: no package either
    await theirLog(ids.laser, ids.Ada, 'allowed', '2026-03-25T11:00:00.000Z'); // Wed 12:00: ours too
    // Before --since: not compared.
    await theirLog(ids.laser, ids.Dan, 'allowed', '2026-02-02T11:00:00.000Z');
  });
  afterAll(async () => {
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
    await theirLog(ids.door, ids.Ben, 'denied', '2026-03-26T09:00:00.000Z', 'memberInactive');
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
    expect(out.join('')).toContain('Ben Shadow at Front door: theirs denied (memberInactive), ours allowed');
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
});
