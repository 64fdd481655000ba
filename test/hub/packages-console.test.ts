import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { insertResource, plainMember } from './spaces-support.js';

/** Tuesday 2026-03-10, 10:00 UTC (the space keeps UTC). */
const clock = { current: new Date('2026-03-10T10:00:00.000Z'), now: () => clock.current };

describeEachDialect('what the packages and trainings pages ask of the API', (dialect) => {
  let t: TestHub;
  let owner: string;
  let mia: { memberId: number; token: string };
  let bo: { memberId: number; token: string };
  const api = (token: string, method: string, url: string, payload?: object) =>
    t.call(token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
  const count = async (table: 'charges' | 'member_packages' | 'member_credits') =>
    Number(
      (
        await t.hub.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock });
    owner = t.owner.token;
    await t.hub.jobs.stop();
    mia = await plainMember(t, 'Mia');
    bo = await plainMember(t, 'Bo');
  });
  afterAll(async () => t?.close());

  describe('packages', () => {
    let monthly: { id: number };

    beforeAll(async () => {
      monthly = (
        await api(owner, 'POST', '/packages', {
          name: 'Monthly',
          setupFee: '10.00',
          recurringFee: '31.00',
          prorate: true,
        })
      ).json();
      const credit = (await api(owner, 'POST', `/packages/${monthly.id}/credits`)).json();
      await api(owner, 'PUT', `/packages/${monthly.id}/credits/${credit.id}`, {
        amount: '5.00',
        lockVersion: credit.lockVersion,
      });
    });

    it('previews the setup fee, the pro rata first month and the credit, writing nothing', async () => {
      const before = await Promise.all([count('charges'), count('member_packages'), count('member_credits')]);
      const res = await api(owner, 'POST', `/members/${mia.memberId}/packages/preview`, {
        package: monthly.id,
        fromDate: '2026-03-10',
      });
      expect(res.statusCode).toBe(200);
      // March has 31 days; from the 10th, 22 of them: 31.00 * 22/31 = 22.00.
      expect(res.json()).toEqual({
        fromDate: '2026-03-10',
        untilDate: null,
        charges: [
          expect.objectContaining({ description: 'Monthly: setup fee', price: '10.00' }),
          expect.objectContaining({
            description: 'Monthly: 2026-03-10 to 2026-03-31 (pro rata)',
            price: '22.00',
          }),
        ],
        total: '32.00',
        credits: [{ scope: 'global', amount: '5.00', fromDate: '2026-03-10', untilDate: '2026-04-10' }],
      });
      expect(
        await Promise.all([count('charges'), count('member_packages'), count('member_credits')]),
      ).toEqual(before);
      // The real create charges what the preview said.
      const given = await api(owner, 'POST', `/members/${mia.memberId}/packages`, {
        package: monthly.id,
        fromDate: '2026-03-10',
      });
      expect(given.statusCode).toBe(201);
      const charges = (await api(owner, 'GET', `/charges?member=${mia.memberId}`)).json();
      expect(charges.map((c: any) => [c.description, c.price])).toEqual(
        res.json().charges.map((c: any) => [c.description, c.price]),
      );
    });

    it('previews a later start as billing will charge it on that day', async () => {
      const res = await api(owner, 'POST', `/members/${bo.memberId}/packages/preview`, {
        package: monthly.id,
        fromDate: '2026-04-16',
        untilDate: '2026-06-30',
      });
      expect(res.statusCode).toBe(200);
      // April has 30 days; from the 16th, 15 of them: 31.00 * 15/30 = 15.50.
      expect(res.json().charges.map((c: any) => c.price)).toEqual(['10.00', '15.50']);
      expect(res.json().total).toBe('25.50');
      expect((await api(owner, 'GET', `/members/${bo.memberId}/packages`)).json()).toEqual([]);
    });

    it('refuses bad input as the create does (400 naming the field, 422), and plain members (403)', async () => {
      const before = await count('member_packages');
      const bad = await api(owner, 'POST', `/members/${bo.memberId}/packages/preview`, {
        package: monthly.id,
        fromDate: '2026-02-30',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('fromDate');
      const inverted = await api(owner, 'POST', `/members/${bo.memberId}/packages/preview`, {
        package: monthly.id,
        fromDate: '2026-04-01',
        untilDate: '2026-03-01',
      });
      expect(inverted.statusCode).toBe(422);
      const archived = (await api(owner, 'POST', '/packages', { name: 'Old', state: 'archived' })).json();
      expect(
        (await api(owner, 'POST', `/members/${bo.memberId}/packages/preview`, { package: archived.id }))
          .statusCode,
      ).toBe(422);
      expect(
        (await api(bo.token, 'POST', `/members/${bo.memberId}/packages/preview`, { package: monthly.id }))
          .statusCode,
      ).toBe(403);
      expect(
        (await api(owner, 'POST', '/members/999999/packages/preview', { package: monthly.id })).statusCode,
      ).toBe(404);
      expect(await count('member_packages')).toBe(before);
    });

    it('counts the members holding each package today with embed=memberCount', async () => {
      const ended = (await api(owner, 'POST', '/packages', { name: 'Ended' })).json();
      await api(owner, 'POST', `/members/${bo.memberId}/packages`, {
        package: ended.id,
        fromDate: '2026-01-01',
        untilDate: '2026-02-28',
      });
      await api(owner, 'POST', `/members/${bo.memberId}/packages`, {
        package: monthly.id,
        fromDate: '2026-05-01',
      });
      const list = await api(owner, 'GET', '/packages?embed=memberCount&orderBy=name');
      expect(list.statusCode).toBe(200);
      const byName = Object.fromEntries(list.json().map((p: any) => [p.name, p._embedded.memberCount]));
      // Mia holds Monthly now; Bo's Monthly starts in May and his Ended package is over.
      expect(byName).toMatchObject({ Monthly: 1, Ended: 0, Old: 0 });
      expect((await api(owner, 'GET', '/packages')).json()[0]._embedded).toBeUndefined();
      // A plain member sees only the packages they hold, and not how many others hold them.
      const own = (await api(mia.token, 'GET', '/packages?embed=memberCount')).json();
      expect(own.map((p: any) => [p.name, p._embedded])).toEqual([['Monthly', undefined]]);
    });
  });

  describe('member trainings of the account', () => {
    it('records who gave a training, and changes it', async () => {
      const course = (await api(owner, 'POST', '/training-courses', { title: 'Lathe' })).json();
      const res = await api(owner, 'POST', `/members/${mia.memberId}/trainings`, {
        trainingCourse: course.id,
        trainer: 'Grace Hopper',
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ trainer: 'Grace Hopper', date: '2026-03-10', untilDate: null });
      const long = await api(owner, 'POST', `/members/${mia.memberId}/trainings`, {
        trainingCourse: course.id,
        trainer: 'x'.repeat(201),
      });
      expect(long.statusCode).toBe(400);
      expect(long.json().message).toContain('trainer');
      const put = await api(owner, 'PUT', `/members/${mia.memberId}/trainings/${res.json().id}`, {
        trainer: 'Ada',
        lockVersion: 1,
      });
      expect(put.json().trainer).toBe('Ada');
      await api(owner, 'DELETE', `/members/${mia.memberId}/trainings/${res.json().id}`);
      await api(owner, 'DELETE', `/training-courses/${course.id}`);
    });

    it('lists trainings expiring in a date range, soonest first, with the member', async () => {
      const laser = await insertResource(t, { space: t.owner.spaceId, name: 'Laser' });
      const course = (
        await api(owner, 'POST', '/training-courses', {
          title: 'Laser safety',
          defaultDuration: 1,
          defaultDurationUnit: 'month',
          resources: [laser],
        })
      ).json();
      const train = async (memberId: number, date: string) =>
        (
          await api(owner, 'POST', `/members/${memberId}/trainings`, { trainingCourse: course.id, date })
        ).json();
      const soon = await train(mia.memberId, '2026-02-20'); // valid until 2026-03-20
      expect(soon.trainer).toBeNull();
      const later = await train(bo.memberId, '2026-03-01'); // until 2026-04-01
      await train(bo.memberId, '2026-01-01'); // expired 2026-02-01
      const res = await api(
        owner,
        'GET',
        '/member-trainings?untilFrom=2026-03-10&untilTo=2026-04-09&embed=member',
      );
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-total-count']).toBe('2');
      expect(res.json().map((x: any) => [x.id, x.untilDate, x._embedded.member.firstName])).toEqual([
        [soon.id, '2026-03-20', 'Mia'],
        [later.id, '2026-04-01', 'Bo'],
      ]);
      // Bad input: 400 naming the field.
      const bad = await api(owner, 'GET', '/member-trainings?untilTo=next-week');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('untilTo');
      // A plain member sees only their own.
      const own = await api(mia.token, 'GET', '/member-trainings');
      expect(own.json().map((x: any) => x.id)).toEqual([soon.id]);
      expect((await api(mia.token, 'GET', `/member-trainings/${later.id}`)).statusCode).toBe(404);
    });
  });
});
