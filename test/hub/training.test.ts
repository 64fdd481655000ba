import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { insertResource, plainMember } from './spaces-support.js';

describeEachDialect('training courses and member trainings', (dialect) => {
  let t: TestHub;
  let owner: string;
  let laser: number;
  let lathe: number;
  let mia: { memberId: number; token: string };
  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    laser = await insertResource(t, { space: t.owner.spaceId, name: 'Laser' });
    lathe = await insertResource(t, { space: t.owner.spaceId, name: 'Lathe' });
    mia = await plainMember(t, 'Mia');
  });
  afterAll(async () => t?.close());

  const call = (token: string, method: string, url: string, payload?: object) =>
    t.call(token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });

  it('creates a course with the resources it qualifies for, edits and filters them', async () => {
    const res = await call(owner, 'POST', '/training-courses', {
      title: 'Laser safety',
      defaultDuration: 1,
      defaultDurationUnit: 'year',
      resources: [laser, laser],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      title: 'Laser safety',
      state: 'active',
      resources: [laser],
      lockVersion: 1,
    });
    const put = await call(owner, 'PUT', `/training-courses/${res.json().id}`, {
      resources: [laser, lathe],
      lockVersion: 1,
    });
    expect(put.json()).toMatchObject({ resources: [laser, lathe], lockVersion: 2 });
    const byResource = await call(owner, 'GET', `/training-courses?resource=${lathe}`);
    expect(byResource.json().map((c: any) => c.id)).toEqual([res.json().id]);
    expect((await call(mia.token, 'GET', `/training-courses/${res.json().id}`)).statusCode).toBe(200);
  });

  it('refuses resources of other accounts (422) and member writes (403), storing nothing', async () => {
    const other = await t.newAccount('Elsewhere', 'else@test.example');
    const foreign = await insertResource(t, {
      space: other.spaceId,
      account: other.accountId,
      name: 'Theirs',
    });
    const before = Number((await call(owner, 'GET', '/training-courses')).headers['x-total-count']);
    const res = await call(owner, 'POST', '/training-courses', { title: 'X', resources: [foreign] });
    expect(res.statusCode).toBe(422);
    expect(res.json().data).toEqual({ unknownResources: [foreign] });
    expect((await call(mia.token, 'POST', '/training-courses', { title: 'Mine' })).statusCode).toBe(403);
    expect((await call(owner, 'POST', '/training-courses', { title: 'X', colour: 1 })).statusCode).toBe(400);
    expect(Number((await call(owner, 'GET', '/training-courses')).headers['x-total-count'])).toBe(before);
    expect((await call(other.token, 'GET', '/training-courses')).json()).toEqual([]);
  });

  it('records member trainings with validity from the course default, and protects used courses', async () => {
    const course = (
      await call(owner, 'POST', '/training-courses', {
        title: 'Lathe intro',
        defaultDuration: 6,
        defaultDurationUnit: 'month',
        resources: [lathe],
      })
    ).json();
    const training = await call(owner, 'POST', `/members/${mia.memberId}/trainings`, {
      trainingCourse: course.id,
      date: '2026-01-31',
    });
    expect(training.statusCode).toBe(201);
    expect(training.json()).toMatchObject({
      member: mia.memberId,
      trainingCourse: course.id,
      date: '2026-01-31',
      fromDate: '2026-01-31',
      untilDate: '2026-07-31',
    });
    const inverted = await call(owner, 'POST', `/members/${mia.memberId}/trainings`, {
      trainingCourse: course.id,
      fromDate: '2026-05-01',
      untilDate: '2026-04-01',
    });
    expect(inverted.statusCode).toBe(422);
    const unknown = await call(owner, 'POST', `/members/${mia.memberId}/trainings`, {
      trainingCourse: 999999,
    });
    expect(unknown.statusCode).toBe(422);

    const own = await call(mia.token, 'GET', `/members/${mia.memberId}/trainings`);
    expect(own.json().map((x: any) => x.id)).toEqual([training.json().id]);
    expect(
      (await call(mia.token, 'POST', `/members/${mia.memberId}/trainings`, { trainingCourse: course.id }))
        .statusCode,
    ).toBe(403);
    expect((await call(mia.token, 'GET', `/members/${t.owner.memberId}/trainings`)).statusCode).toBe(404);

    const blocked = await call(owner, 'DELETE', `/training-courses/${course.id}`);
    expect(blocked.statusCode).toBe(409);
    expect(
      (await call(owner, 'DELETE', `/members/${mia.memberId}/trainings/${training.json().id}`)).statusCode,
    ).toBe(204);
    expect((await call(owner, 'DELETE', `/training-courses/${course.id}`)).statusCode).toBe(204);
    expect((await call(owner, 'GET', `/training-courses/${course.id}`)).statusCode).toBe(404);
  });
});
