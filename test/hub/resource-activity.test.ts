import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * What the console's resource form and activity log rely on: a resource's maximum duration and
 * lock reason (migration 0014), and the period filters of GET /resource-logs.
 */
describeEachDialect('resource limits and the activity of the space', (dialect) => {
  let t: TestHub;
  let owner: string;
  let member: { id: number; token: string };
  let laser: any;
  let door: any;

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const ids = (res: { json(): any }) => (res.json() as { id: number }[]).map((l) => l.id);

  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    member = await t.newMemberWithToken('Lena', 'Laser');
    const post = async (body: object) => {
      const res = await api(owner, 'POST', '/resources', { space: t.owner.spaceId, ...body });
      expect(res.statusCode).toBe(201);
      return res.json();
    };
    laser = await post({ name: 'Laser', controlType: 'machine' });
    door = await post({ name: 'Door', controlType: 'door' });
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('maximum duration and lock reason', () => {
    it('saves both, shows the reason on the access check only while locked, and limits sessions', async () => {
      expect(laser).toMatchObject({ maxDuration: null, lockReason: null });
      const saved = await api(owner, 'PUT', `/resources/${laser.id}`, {
        lockVersion: laser.lockVersion,
        maxDuration: 3600,
        state: 'locked',
        lockReason: 'New lens being fitted until Friday',
      });
      expect(saved.statusCode).toBe(200);
      expect(saved.json()).toMatchObject({
        maxDuration: 3600,
        state: 'locked',
        lockReason: 'New lens being fitted until Friday',
      });
      laser = saved.json();

      const check = await api(member.token, 'GET', `/resources/${laser.id}/access-check`);
      expect(check.statusCode).toBe(200);
      expect(check.json()).toMatchObject({
        allowed: false,
        reason: 'inactive',
        resource: { lockReason: 'New lens being fitted until Friday' },
      });

      const open = await api(owner, 'PUT', `/resources/${laser.id}`, {
        lockVersion: laser.lockVersion,
        state: 'active',
      });
      laser = open.json();
      // The reason stays stored for the next lock, but members see it only while locked.
      const ownerCheck = (await api(owner, 'GET', `/resources/${laser.id}/access-check`)).json();
      expect(ownerCheck.resource.lockReason).toBeNull();
      // The owner passes package and time rules, not the machine's own limit.
      expect(ownerCheck.maxDuration).not.toBeNull();
      expect(ownerCheck.maxDuration).toBeLessThanOrEqual(3600);
    });

    it('refuses a bad maximum duration or an over-long reason by name and changes nothing', async () => {
      for (const [body, field] of [
        [{ maxDuration: 30 }, 'maxDuration'],
        [{ maxDuration: 'long' }, 'maxDuration'],
        [{ lockReason: 'x'.repeat(501) }, 'lockReason'],
      ] as const) {
        const res = await api(owner, 'PUT', `/resources/${laser.id}`, {
          lockVersion: laser.lockVersion,
          ...body,
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toContain(field);
      }
      const now = (await api(owner, 'GET', `/resources/${laser.id}`)).json();
      expect(now).toMatchObject({ maxDuration: 3600, lockVersion: laser.lockVersion });
    });

    it('plain members cannot set them', async () => {
      const res = await api(member.token, 'PUT', `/resources/${laser.id}`, {
        lockVersion: laser.lockVersion,
        maxDuration: 600,
      });
      expect([403, 404]).toContain(res.statusCode);
      expect((await api(owner, 'GET', `/resources/${laser.id}`)).json().maxDuration).toBe(3600);
    });
  });

  describe('GET /resource-logs from and until', () => {
    const logs: Record<string, number> = {};
    beforeAll(async () => {
      const log = async (name: string, body: object) => {
        const res = await api(owner, 'POST', '/resource-logs', body);
        expect(res.statusCode).toBe(201);
        logs[name] = res.json().id;
      };
      // Yesterday evening: a session from 17:00 to 23:00 UTC, a denial at 21:00, the door at 08:00.
      await log('evening', {
        resource: laser.id,
        member: member.id,
        createdAt: '2026-03-10T17:00:00.000Z',
        stoppedAt: '2026-03-10T23:00:00.000Z',
        stopType: 'normal',
      });
      await log('denied', {
        resource: laser.id,
        type: 'denied',
        reason: 'noPermission',
        member: t.owner.memberId,
        createdAt: '2026-03-10T21:00:00.000Z',
      });
      await log('morning', {
        resource: door.id,
        member: member.id,
        createdAt: '2026-03-10T08:00:00.000Z',
        stoppedAt: '2026-03-10T08:00:05.000Z',
      });
    });

    it('answers "who used the laser last night": logs that overlap the period', async () => {
      const night = await api(
        owner,
        'GET',
        `/resource-logs?resource=${laser.id}&from=2026-03-10T20:00:00.000Z&until=2026-03-11T06:00:00.000Z&resolve=member`,
      );
      expect(night.statusCode).toBe(200);
      expect(ids(night)).toEqual([logs.denied, logs.evening]);
      expect(night.headers['x-total-count']).toBe('2');
      expect(night.json()[1].member).toMatchObject({ firstName: 'Lena', lastName: 'Laser' });

      const allowedOnly = await api(
        owner,
        'GET',
        `/resource-logs?type=allowed&from=2026-03-10T20:00:00.000Z&until=2026-03-11T06:00:00.000Z`,
      );
      expect(ids(allowedOnly)).toEqual([logs.evening]);

      // The morning: only the door; the laser's session had not begun.
      const morning = await api(
        owner,
        'GET',
        '/resource-logs?from=2026-03-10T07:00:00.000Z&until=2026-03-10T12:00:00.000Z',
      );
      expect(ids(morning)).toEqual([logs.morning]);

      // After the session stopped nothing of the evening is left.
      const late = await api(
        owner,
        'GET',
        `/resource-logs?resource=${laser.id}&from=2026-03-10T23:30:00.000Z`,
      );
      expect(ids(late)).not.toContain(logs.evening);
      expect(ids(late)).not.toContain(logs.denied);
    });

    it('a member sees only their own logs of the period', async () => {
      const mine = await api(
        member.token,
        'GET',
        '/resource-logs?from=2026-03-10T00:00:00.000Z&until=2026-03-11T00:00:00.000Z',
      );
      expect(mine.statusCode).toBe(200);
      expect(ids(mine).sort()).toEqual([logs.evening, logs.morning].sort());
    });

    it('refuses bad times with the field named', async () => {
      for (const [query, field] of [
        ['from=yesterday', 'from'],
        ['until=2026-13-45T00:00:00Z', 'until'],
        ['from=2026-03-11T00:00:00.000Z&until=2026-03-10T00:00:00.000Z', 'until'],
        ['from=2026-03-11T00:00:00.000Z&until=2026-03-11T00:00:00.000Z', 'until'],
      ] as const) {
        const res = await api(owner, 'GET', `/resource-logs?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().message).toContain(field);
      }
    });
  });
});
