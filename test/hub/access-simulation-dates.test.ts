import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * Members who joined on different days hold the same package in every slot of the range when
 * all those days are before it: the simulation asks the policy about them once, not once each,
 * and still answers what then happens for those whose package or training begins or ends inside
 * the range. (A space's members each have their own join date: without this, 1,000 of them were
 * 1,000 classes and a simulation for everyone took seconds.) And changes that reach nobody (a
 * new package or course, deleting one nobody holds) answer so, as then happens.
 */
// Each comparison asks the policy about every member, resource and hour twice, one by one: on
// PostgreSQL on a busy machine that took 75 s for two.
vi.setConfig({ testTimeout: 240_000 });

describeEachDialect('access simulations: what reaches nobody; members by their dates', (dialect) => {
  let t: TestHub;
  const now = new Date('2026-03-23T08:30:00.000Z'); // Monday 09:30 in Vienna
  const ids: Record<string, number> = {};
  const joined: number[] = [];

  const api = (method: string, url: string, payload?: unknown) =>
    t.call(t.owner.token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const created = async (url: string, payload: unknown) => {
    const res = await api('POST', url, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as number;
  };
  const slots = Array.from(
    { length: 168 },
    (_, i) => new Date(Date.parse('2026-03-23T08:00:00.000Z') + i * 3_600_000),
  );

  /** The policy's own answers for every member and resource: `member:resource` -> allowed slot starts. */
  async function answers() {
    const { ctx } = t.hub;
    const account = t.owner.accountId;
    const members = await ctx.db.selectFrom('members').selectAll().where('account', '=', account).execute();
    const resources = await ctx.db
      .selectFrom('resources')
      .selectAll()
      .where('account', '=', account)
      .execute();
    const out = new Map<string, Set<string>>();
    for (const member of members)
      for (const resource of resources) {
        const allowed = new Set<string>();
        for (const at of slots)
          if ((await ctx.policy.decide({ db: ctx.db, resource, member, at })).allowed)
            allowed.add(at.toISOString());
        out.set(`${member.id}:${resource.id}`, allowed);
      }
    return out;
  }

  /** The simulation's answer beside what the policy answers once the request is really made. */
  async function simulateThenApply(method: string, path: string, body: unknown, expectChanges = true) {
    const sim = await api('POST', '/access-simulations', {
      method,
      path,
      ...(body === undefined ? {} : { body }),
    });
    expect(sim.statusCode, sim.body).toBe(200);
    const before = await answers();
    const real = await api(method, path, body);
    expect(real.statusCode, real.body).toBeLessThan(300);
    const after = await answers();
    const expected: Record<string, { gains: string[]; loses: string[] }> = {};
    for (const [pair, was] of before) {
      const is = after.get(pair) ?? new Set<string>();
      const gains = [...is].filter((s) => !was.has(s)).sort();
      const loses = [...was].filter((s) => !is.has(s)).sort();
      if (gains.length + loses.length > 0) expected[pair] = { gains, loses };
    }
    const starts = (stretches: { from: string; until: string }[]) =>
      stretches.flatMap((s) =>
        slots.map((at) => at.toISOString()).filter((at) => at >= s.from && at < s.until),
      );
    const simulated: typeof expected = {};
    for (const c of sim.json().changes)
      simulated[`${c.member}:${c.resource}`] = { gains: starts(c.gains), loses: starts(c.loses) };
    expect(simulated).toEqual(expected);
    if (expectChanges) expect(Object.keys(expected).length).toBeGreaterThan(0);
    return { ...sim.json(), created: real.statusCode === 201 ? real.json().id : undefined };
  }

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock: { now: () => now } });
    const space = (await api('GET', `/spaces/${t.owner.spaceId}`)).json();
    await api('PUT', `/spaces/${space.id}`, { lockVersion: space.lockVersion, timezone: 'Europe/Vienna' });
    ids.laser = await created('/resources', {
      space: space.id,
      name: 'Laser',
      controlType: 'machine',
      requiresTraining: true,
    });
    ids.door = await created('/resources', { space: space.id, name: 'Door', controlType: 'door' });
    ids.course = await created('/training-courses', { title: 'Laser basics', resources: [ids.laser] });
    ids.pkg = await created('/packages', { name: 'Member' });
    ids.permission = await created(`/packages/${ids.pkg}/permissions`, { type: 'everything' });
    // Twelve members who joined on twelve days before the range, and trained on as many.
    for (let i = 0; i < 12; i++) {
      const day = `2025-${String(i + 1).padStart(2, '0')}-${String(i + 3).padStart(2, '0')}`;
      const member = await created('/members', {
        firstName: `Joined${i}`,
        lastName: 'Early',
        emailAddress: `joined${i}@dates.example`,
      });
      joined.push(member);
      await created(`/members/${member}/packages`, {
        package: ids.pkg,
        fromDate: day,
        // Some end long after the range, some never.
        ...(i % 3 === 0 ? { untilDate: `2027-0${(i % 9) + 1}-01` } : {}),
      });
      await created(`/members/${member}/trainings`, { trainingCourse: ids.course, date: day });
    }
    // One whose package begins inside the range, one whose package ends inside it, one whose
    // training ends inside it.
    for (const [name, pkg, training] of [
      ['Late', { fromDate: '2026-03-25' }, { date: '2025-05-05' }],
      ['Leaving', { fromDate: '2025-02-02', untilDate: '2026-03-26' }, { date: '2025-05-05' }],
      ['Lapsing', { fromDate: '2025-02-02' }, { date: '2025-05-05', untilDate: '2026-03-27' }],
    ] as const) {
      ids[name] = await created('/members', {
        firstName: name,
        lastName: 'Inside',
        emailAddress: `${name}@dates.example`,
      });
      await created(`/members/${ids[name]}/packages`, { package: ids.pkg, ...pkg });
      await created(`/members/${ids[name]}/trainings`, { trainingCourse: ids.course, ...training });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a new package or course, and deleting one nobody holds: nobody’s access changes, as then happens', async () => {
    // Compared with the policy's answers after the real request (each comparison asks the policy
    // about every member, resource and hour twice: two of the four on PostgreSQL's time).
    const pkg = await simulateThenApply('POST', '/packages', { name: 'Weekend' }, false);
    expect(pkg.evaluated.members).toBe(0);
    const sim = (method: string, path: string, body?: unknown) =>
      api('POST', '/access-simulations', { method, path, ...(body === undefined ? {} : { body }) });
    const course = await sim('POST', '/training-courses', { title: 'Door basics', resources: [ids.door] });
    expect(course.statusCode, course.body).toBe(200);
    expect(course.json()).toMatchObject({ changes: [], evaluated: { members: 0 } });
    const courseId = await created('/training-courses', { title: 'Door basics', resources: [ids.door] });
    const deletePackage = await sim('DELETE', `/packages/${pkg.created}`);
    expect(deletePackage.json()).toMatchObject({ changes: [], evaluated: { members: 0 } });
    expect((await api('DELETE', `/packages/${pkg.created}`)).statusCode).toBe(204);
    await simulateThenApply('DELETE', `/training-courses/${courseId}`, undefined, false);
    // Deleting what members hold is refused, by the simulation as by the route.
    const held = await sim('DELETE', `/training-courses/${ids.course}`);
    expect(held.statusCode).toBe(409);
    expect((await api('DELETE', `/training-courses/${ids.course}`)).statusCode).toBe(409);
  });

  it('members whose dates are all outside the range are asked about once; the others apart, and right', async () => {
    const change = {
      method: 'PUT',
      path: `/packages/${ids.pkg}/permissions/${ids.permission}`,
      body: {
        lockVersion: 1,
        timeType: 'custom',
        times: [1, 3, 5].map((dayOfWeek) => ({ dayOfWeek, fromTime: '10:00', untilTime: '18:00' })),
      },
    };
    const decisionsFor = async (members: number[]) => {
      const res = await api('POST', '/access-simulations', { ...change, members });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().evaluated.members).toBe(members.length);
      return res.json().evaluated.decisions as number;
    };
    // Twelve join dates, one class: as many decisions as for one of them.
    expect(await decisionsFor(joined)).toBe(await decisionsFor([joined[0]]));
    expect(await decisionsFor([...joined, ids.Late])).toBeGreaterThan(await decisionsFor(joined));

    const result = await simulateThenApply(change.method, change.path, change.body);
    const changed = (member: number, resource: number) =>
      result.changes.find((c: any) => c.member === member && c.resource === resource);
    const early = changed(joined[0], ids.door);
    for (const member of joined) expect(changed(member, ids.door)?.loses).toEqual(early.loses);
    // Those whose package or training begins or ends inside the range lose other hours.
    expect(changed(ids.Late, ids.door)?.loses).not.toEqual(early.loses);
    expect(changed(ids.Leaving, ids.door)?.loses).not.toEqual(early.loses);
    expect(changed(ids.Lapsing, ids.laser)?.loses).not.toEqual(changed(joined[0], ids.laser)?.loses);
  });
});
