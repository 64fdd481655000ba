import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { insertResource, plainMember } from './spaces-support.js';

describeEachDialect('trainers of training courses', (dialect) => {
  let t: TestHub;
  let owner: string;
  let laser: number;
  let laserCourse: number;
  let latheCourse: number;
  let tina: { memberId: number; token: string };
  let mia: { memberId: number; token: string };
  let max: { memberId: number; token: string };
  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    laser = await insertResource(t, { space: t.owner.spaceId, name: 'Laser', requiresTraining: 1 });
    const lathe = await insertResource(t, { space: t.owner.spaceId, name: 'Lathe', requiresTraining: 1 });
    tina = await plainMember(t, 'Tina');
    mia = await plainMember(t, 'Mia');
    max = await plainMember(t, 'Max');
    laserCourse = (
      await call(owner, 'POST', '/training-courses', {
        title: 'Laser safety',
        resources: [laser],
        defaultDuration: 1,
        defaultDurationUnit: 'year',
      })
    ).json().id;
    latheCourse = (
      await call(owner, 'POST', '/training-courses', { title: 'Lathe', resources: [lathe] })
    ).json().id;
  });
  afterAll(async () => t?.close());

  const call = (token: string, method: string, url: string, payload?: object) =>
    t.call(token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });

  it('an admin makes a member trainer of a course; members see who trains it', async () => {
    const made = await call(owner, 'POST', `/training-courses/${laserCourse}/trainers`, {
      member: tina.memberId,
    });
    expect(made.statusCode).toBe(201);
    expect(made.json()).toMatchObject({
      trainingCourse: laserCourse,
      member: tina.memberId,
      _embedded: { member: { firstName: 'Tina' } },
    });
    const again = await call(owner, 'POST', `/training-courses/${laserCourse}/trainers`, {
      member: tina.memberId,
    });
    expect(again.statusCode).toBe(409);
    const list = await call(mia.token, 'GET', `/training-courses/${laserCourse}/trainers`);
    expect(list.json().map((r: any) => r.member)).toEqual([tina.memberId]);
    const mine = await call(tina.token, 'GET', `/training-courses?trainer=${tina.memberId}`);
    expect(mine.json().map((c: any) => c.id)).toEqual([laserCourse]);
  });

  it('only admins make trainers, of members of their own account', async () => {
    const byMember = await call(mia.token, 'POST', `/training-courses/${laserCourse}/trainers`, {
      member: mia.memberId,
    });
    expect(byMember.statusCode).toBe(403);
    const other = await t.newAccount('Elsewhere', 'elsewhere@test.example');
    const stranger = await call(owner, 'POST', `/training-courses/${laserCourse}/trainers`, {
      member: other.memberId,
    });
    expect(stranger.statusCode).toBe(422);
    expect(stranger.json().data).toEqual({ unknownMember: true });
    const list = await call(owner, 'GET', `/training-courses/${laserCourse}/trainers`);
    expect(list.json().map((r: any) => r.member)).toEqual([tina.memberId]);
  });

  it('a trainer records a training of their course: the course validity, their name, signed by them', async () => {
    const before = await call(mia.token, 'GET', `/resources/${laser}/access-check`);
    expect(before.json()).toMatchObject({ allowed: false, reason: 'noPermission' });
    const res = await call(tina.token, 'POST', `/members/${mia.memberId}/trainings`, {
      trainingCourse: laserCourse,
      date: '2026-11-20',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      member: mia.memberId,
      trainingCourse: laserCourse,
      fromDate: '2026-11-20',
      untilDate: '2027-11-20',
      trainer: 'Tina',
      signedBy: tina.memberId,
    });
    // The training rule passes now; what is left is her package (she has none).
    const after = await call(mia.token, 'GET', `/resources/${laser}/access-check`);
    expect(after.json()).toMatchObject({ allowed: false, reason: 'noPackage' });
    // The trainer sees what they signed, under the member and in the account's list.
    const under = await call(tina.token, 'GET', `/members/${mia.memberId}/trainings`);
    expect(under.statusCode).toBe(200);
    expect(under.json().map((r: any) => r.id)).toEqual([res.json().id]);
    const signed = await call(tina.token, 'GET', `/member-trainings?signedBy=${tina.memberId}`);
    expect(signed.json().map((r: any) => r.id)).toEqual([res.json().id]);
    // The trainee sees it as theirs.
    const own = await call(mia.token, 'GET', `/members/${mia.memberId}/trainings`);
    expect(own.json().map((r: any) => r.signedBy)).toEqual([tina.memberId]);
  });

  it('refuses, with a reason, a trainer who records another course, their own training, or a stranger', async () => {
    const count = async () =>
      Number((await call(owner, 'GET', '/member-trainings')).headers['x-total-count'] ?? 0);
    const before = await count();
    const otherCourse = await call(tina.token, 'POST', `/members/${max.memberId}/trainings`, {
      trainingCourse: latheCourse,
    });
    expect(otherCourse.statusCode).toBe(403);
    expect(otherCourse.json().data).toMatchObject({ reason: 'notTrainer', trainingCourse: latheCourse });
    const ownTraining = await call(tina.token, 'POST', `/members/${tina.memberId}/trainings`, {
      trainingCourse: laserCourse,
    });
    expect(ownTraining.statusCode).toBe(403);
    expect(ownTraining.json().data).toEqual({ reason: 'ownTraining' });
    // A member who trains nothing does not see other members at all.
    const notTrainer = await call(mia.token, 'POST', `/members/${max.memberId}/trainings`, {
      trainingCourse: laserCourse,
    });
    expect(notTrainer.statusCode).toBe(404);
    const other = await t.newAccount('Faraway', 'faraway@test.example');
    const stranger = await call(tina.token, 'POST', `/members/${other.memberId}/trainings`, {
      trainingCourse: laserCourse,
    });
    expect(stranger.statusCode).toBe(404);
    expect(await count()).toBe(before);
    // A member who trains nothing still gets 404 for another member's trainings.
    expect((await call(max.token, 'GET', `/members/${mia.memberId}/trainings`)).statusCode).toBe(404);
  });

  it('a trainer finds trainees by name; other members may not search', async () => {
    const found = await call(tina.token, 'GET', `/training-courses/${laserCourse}/trainees?q=ma`);
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual([{ id: max.memberId, firstName: 'Max', lastName: expect.anything() }]);
    const refused = await call(mia.token, 'GET', `/training-courses/${laserCourse}/trainees?q=ma`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().data).toEqual({ reason: 'notTrainer' });
  });

  it('an ended role stops new records, and the trainings signed stay', async () => {
    const removed = await call(owner, 'DELETE', `/training-courses/${laserCourse}/trainers/${tina.memberId}`);
    expect(removed.statusCode).toBe(204);
    const res = await call(tina.token, 'POST', `/members/${max.memberId}/trainings`, {
      trainingCourse: laserCourse,
    });
    expect(res.statusCode).toBe(404);
    const own = await call(mia.token, 'GET', `/members/${mia.memberId}/trainings`);
    expect(own.json()).toHaveLength(1);
    expect(
      (await call(owner, 'DELETE', `/training-courses/${laserCourse}/trainers/${tina.memberId}`)).statusCode,
    ).toBe(404);
  });
});

describe('an expired training', () => {
  let t: TestHub;
  afterAll(async () => t?.close());

  it('stops access to what it unlocked, and the verdict says when it ended', async () => {
    t = await startTestHub('sqlite');
    const call = (token: string, method: string, url: string, payload?: object) =>
      t.call(token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
    const laser = await insertResource(t, { space: t.owner.spaceId, name: 'Laser', requiresTraining: 1 });
    const mia = await plainMember(t, 'Mia');
    const course = (
      await call(t.owner.token, 'POST', '/training-courses', { title: 'Laser', resources: [laser] })
    ).json().id;
    await call(t.owner.token, 'POST', `/members/${mia.memberId}/trainings`, {
      trainingCourse: course,
      date: '2024-01-10',
      untilDate: '2025-01-10',
    });
    const check = await call(mia.token, 'GET', `/resources/${laser}/access-check`);
    expect(check.json()).toMatchObject({
      allowed: false,
      reason: 'noPermission',
      message: 'Your training for this resource expired on 2025-01-10',
      trainingExpired: '2025-01-10',
      trainingCourses: [{ id: course, title: 'Laser' }],
    });
  });
});

describeEachDialect('a trainer records a training by the trainee’s card tap', (dialect) => {
  let t: TestHub;
  let shift = 0;
  const clock = { now: () => new Date(Date.now() + shift) };
  afterAll(async () => t?.close());

  it('the next card of another member at the machine records it; then taps switch on as usual', async () => {
    t = await startTestHub(dialect, { clock });
    const owner = t.owner.token;
    const call = (token: string, method: string, url: string, payload?: object) =>
      t.call(token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
    const laser = (
      await call(owner, 'POST', '/resources', {
        space: t.owner.spaceId,
        name: 'Laser',
        requiresTraining: true,
      })
    ).json().id as number;
    await call(owner, 'PUT', `/resources/${laser}/bridge`, { heartbeatInterval: 30 });
    const bridgeKey = (await call(owner, 'GET', `/resources/${laser}/bridge/api-key`)).json()
      .apiKey as string;
    const tap = (token: string) =>
      call(bridgeKey, 'POST', '/bridge/access', { keys: [{ type: 'em4102', token }], configVersion: 0 });
    const tina = await plainMember(t, 'Tina');
    const mia = await plainMember(t, 'Mia');
    await call(owner, 'PUT', `/members/${tina.memberId}/key`, { type: 'em4102', token: '0A0A000001' });
    await call(owner, 'PUT', `/members/${mia.memberId}/key`, { type: 'em4102', token: '0A0A000002' });
    const course = (
      await call(owner, 'POST', '/training-courses', { title: 'Laser safety', resources: [laser] })
    ).json().id as number;
    const other = (await call(owner, 'POST', '/training-courses', { title: 'Lathe' })).json().id as number;
    await call(owner, 'POST', `/training-courses/${course}/trainers`, { member: tina.memberId });
    await call(owner, 'POST', `/training-courses/${other}/trainers`, { member: tina.memberId });

    // Refused: a course that does not unlock the laser; a member who trains nothing.
    const wrong = await call(tina.token, 'POST', `/resources/${laser}/training-taps`, {
      trainingCourse: other,
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().data).toEqual({ courseDoesNotUnlock: true });
    const notTrainer = await call(mia.token, 'POST', `/resources/${laser}/training-taps`, {
      trainingCourse: course,
    });
    expect(notTrainer.statusCode).toBe(403);

    const wait = await call(tina.token, 'POST', `/resources/${laser}/training-taps`, {
      trainingCourse: course,
    });
    expect(wait.statusCode).toBe(201);
    expect(wait.json()).toMatchObject({ state: 'waiting', trainingCourse: course, trainer: tina.memberId });
    // The trainer's own card does not count: it is decided as usual.
    expect((await tap('0A0A000001')).json()).toMatchObject({ type: 'denied', reason: 'noPermission' });
    const trainee = await tap('0A0A000002');
    expect(trainee.json()).toMatchObject({
      type: 'message',
      member: { id: mia.memberId },
      messages: ['Training recorded for Mia'],
    });
    const done = (await call(tina.token, 'GET', `/training-taps/${wait.json().id}`)).json();
    expect(done).toMatchObject({
      state: 'recorded',
      trainee: mia.memberId,
      _embedded: { trainee: { firstName: 'Mia' } },
    });
    const trainings = (await call(mia.token, 'GET', `/members/${mia.memberId}/trainings`)).json();
    expect(trainings).toEqual([
      expect.objectContaining({
        id: done.memberTraining,
        trainingCourse: course,
        signedBy: tina.memberId,
        trainer: 'Tina',
      }),
    ]);
    // The wait is used up: Mia's next tap is a plain access decision (trained now, no package).
    expect((await tap('0A0A000002')).json()).toMatchObject({ type: 'denied', reason: 'noPackage' });
    // Others cannot see a trainer's wait.
    expect((await call(mia.token, 'GET', `/training-taps/${wait.json().id}`)).statusCode).toBe(404);
  });

  it('an expired or cancelled wait records nothing', async () => {
    const owner = t.owner.token;
    const call = (token: string, method: string, url: string, payload?: object) =>
      t.call(token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
    const lathe = (
      await call(owner, 'POST', '/resources', {
        space: t.owner.spaceId,
        name: 'Lathe',
        requiresTraining: true,
      })
    ).json().id as number;
    await call(owner, 'PUT', `/resources/${lathe}/bridge`, { heartbeatInterval: 30 });
    const bridgeKey = (await call(owner, 'GET', `/resources/${lathe}/bridge/api-key`)).json()
      .apiKey as string;
    const tap = (token: string) =>
      call(bridgeKey, 'POST', '/bridge/access', { keys: [{ type: 'em4102', token }], configVersion: 0 });
    const max = await plainMember(t, 'Max');
    await call(owner, 'PUT', `/members/${max.memberId}/key`, { type: 'em4102', token: '0A0A000003' });
    const course = (
      await call(owner, 'POST', '/training-courses', { title: 'Lathe basics', resources: [lathe] })
    ).json().id as number;
    const wait = await call(owner, 'POST', `/resources/${lathe}/training-taps`, { trainingCourse: course });
    expect(wait.statusCode).toBe(201);
    shift += 3 * 60_000;
    expect((await call(owner, 'GET', `/training-taps/${wait.json().id}`)).json().state).toBe('expired');
    expect((await tap('0A0A000003')).json()).toMatchObject({ type: 'denied', reason: 'noPermission' });
    const again = await call(owner, 'POST', `/resources/${lathe}/training-taps`, { trainingCourse: course });
    expect((await call(owner, 'DELETE', `/training-taps/${again.json().id}`)).statusCode).toBe(204);
    expect((await tap('0A0A000003')).json()).toMatchObject({ type: 'denied', reason: 'noPermission' });
    expect((await call(max.token, 'GET', `/members/${max.memberId}/trainings`)).json()).toEqual([]);
  });
});
