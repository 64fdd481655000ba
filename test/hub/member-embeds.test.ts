import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

describeEachDialect('member embeds', (dialect) => {
  let t: TestHub;
  let owner: string;
  let m: { id: number };
  let held: { current: number; past: number; pkg: number };
  let training: number;

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    m = (
      await api(owner, 'POST', '/members', {
        firstName: 'Emb',
        emailAddress: `emb${randomUUID()}@test.example`,
      })
    ).json();
    const pkg = (await api(owner, 'POST', '/packages', { name: 'Embedded' })).json().id;
    const current = await api(owner, 'POST', `/members/${m.id}/packages`, {
      package: pkg,
      fromDate: '2020-01-01',
    });
    expect(current.statusCode).toBe(201);
    const past = await api(owner, 'POST', `/members/${m.id}/packages`, {
      package: pkg,
      fromDate: '2019-01-01',
      untilDate: '2019-06-30',
    });
    expect(past.statusCode).toBe(201);
    held = { current: current.json().id, past: past.json().id, pkg };
    const course = (await api(owner, 'POST', '/training-courses', { title: 'Embedding' })).json().id;
    const taken = await api(owner, 'POST', `/members/${m.id}/trainings`, { trainingCourse: course });
    expect(taken.statusCode).toBe(201);
    training = taken.json().id;
    expect(
      (await api(owner, 'PUT', `/members/${m.id}/key`, { type: 'em4102', token: '0E0E0E0E0E' })).statusCode,
    ).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('embed=activePackages fills _embedded.memberPackages with the active ones, each with its package, as an ESP32 door reader reads it', async () => {
    const res = await api(owner, 'GET', `/members?embed=activePackages&limit=1000`);
    expect(res.statusCode).toBe(200);
    const mine = res.json().find((r: { id: number }) => r.id === m.id);
    // What the reader reads: `[0]._embedded.memberPackages[0]._embedded.package`.
    expect(mine._embedded.memberPackages).toHaveLength(1);
    expect(mine._embedded.memberPackages[0]).toMatchObject({
      id: held.current,
      _embedded: { package: { id: held.pkg, name: 'Embedded' } },
    });
    expect(mine._embedded).not.toHaveProperty('activePackages');
  });

  it('embeds every package with its package, trainings, key and privileges', async () => {
    const query = ['memberPackages', 'trainings', 'key', 'privileges'].map((e) => `embed=${e}`).join('&');
    const one = await api(owner, 'GET', `/members/${m.id}?${query}`);
    expect(one.statusCode).toBe(200);
    const embedded = one.json()._embedded;
    expect(embedded.memberPackages.map((p: { id: number }) => p.id).sort()).toEqual(
      [held.current, held.past].sort(),
    );
    expect(embedded.memberPackages.find((p: { id: number }) => p.id === held.past)).toMatchObject({
      _embedded: { package: { id: held.pkg, name: 'Embedded' } },
    });
    expect(embedded.trainings.map((x: { id: number }) => x.id)).toEqual([training]);
    expect(embedded.key).toMatchObject({ type: 'em4102', token: '0E0E0E0E0E' });
    expect(embedded.privileges).toEqual({ privileges: 'member' });

    // The list embeds the same per member; the owner has no key and no packages.
    const list = await api(owner, 'GET', `/members?${query}&limit=1000`);
    expect(list.statusCode).toBe(200);
    const mine = list.json().find((r: { id: number }) => r.id === m.id);
    expect(mine._embedded).toEqual(embedded);
    const ownerRecord = list.json().find((r: { id: number }) => r.id === t.owner.memberId);
    expect(ownerRecord._embedded).toMatchObject({
      memberPackages: [],
      trainings: [],
      key: null,
    });
  });

  it('accepts the other embeds of the commercial interface (device) without a 400, and refuses unknown ones', async () => {
    const res = await api(owner, 'GET', `/members/${m.id}?embed=device`);
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(m.id);
    expect((await api(owner, 'GET', '/members?embed=device&embed=key')).statusCode).toBe(200);
    const bad = await api(owner, 'GET', `/members/${m.id}?embed=colour`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('embed');
  });

  it('a plain record after an embedded read is still the cached plain record', async () => {
    await api(owner, 'GET', `/members/${m.id}?embed=key`);
    const plain = await api(owner, 'GET', `/members/${m.id}`);
    expect(plain.json()).not.toHaveProperty('_embedded');
    expect(plain.json().id).toBe(m.id);
  });
});
