import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOfInstant, reportFrame } from '../../hub/src/reports/report-periods.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * The report figures (GET /reports/usage, /refusals, /members, /revenue) on every dialect, from
 * known logs, packages and charges in a Vienna space (UTC+1 in November): a log at 23:30 UTC
 * belongs to the next day there, and one at 22:59 UTC on 31 October to October.
 */
describeEachDialect('reports: usage, refusals, members and revenue', (dialect) => {
  let t: TestHub;
  let owner: string;
  let plain: { id: number; token: string };
  const ids = { laser: 0, door: 0, printer: 0, ada: 0, bo: 0, cy: 0, di: 0 };
  const logIds: number[] = [];
  const now = new Date('2026-12-05T12:00:00.000Z');

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const created = async (url: string, payload: unknown) => {
    const res = await api(owner, 'POST', url, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const report = async (path: string) => {
    const res = await api(owner, 'GET', `/reports/${path}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock: { now: () => now } });
    owner = t.owner.token;
    await t.hub.ctx.db
      .updateTable('spaces')
      .set({ timezone: 'Europe/Vienna' })
      .where('id', '=', t.owner.spaceId)
      .execute();
    const space = t.owner.spaceId;
    ids.laser = (await created('/resources', { space, name: 'Laser', controlType: 'machine' })).id;
    ids.door = (await created('/resources', { space, name: 'Door', controlType: 'door' })).id;
    ids.printer = (await created('/resources', { space, name: 'Printer', controlType: 'machine' })).id;
    for (const name of ['ada', 'bo', 'cy', 'di'] as const)
      ids[name] = (await created('/members', { firstName: name, lastName: 'Test' })).id;
    plain = await t.newMemberWithToken('Plain', 'Member');

    const log = async (resource: number, createdAt: string, stoppedAt: string | null, extra = {}) => {
      const body = await created('/resource-logs', {
        resource,
        member: ids.ada,
        createdAt,
        ...(stoppedAt ? { stoppedAt, stopType: 'normal' } : {}),
        ...extra,
      });
      logIds.push(body.id);
      return body.id as number;
    };
    // Laser: 1.5 h on 2 Nov; 0.75 h from 00:30 on 3 Nov (Vienna); 2 h from 00:30 on 1 Nov
    // (31 Oct in UTC); one on 1 Dec at 00:30 (30 Nov in UTC), outside November.
    await log(ids.laser, '2026-11-02T08:00:00.000Z', '2026-11-02T09:30:00.000Z');
    await log(ids.laser, '2026-11-02T23:30:00.000Z', '2026-11-03T00:15:00.000Z');
    await log(ids.laser, '2026-10-31T23:30:00.000Z', '2026-11-01T01:30:00.000Z');
    await log(ids.laser, '2026-11-30T23:30:00.000Z', '2026-12-01T00:30:00.000Z');
    // The door: a 5-second pulse on 2 Nov.
    await log(ids.door, '2026-11-02T10:00:00.000Z', '2026-11-02T10:00:05.000Z');
    // Refusals: two noPackage and one openingHours in November, one noPackage on 31 Oct (Vienna).
    const denied = (createdAt: string, reason: string) =>
      log(ids.door, createdAt, null, { type: 'denied', reason });
    await denied('2026-11-02T10:00:00.000Z', 'noPackage');
    await denied('2026-11-02T11:00:00.000Z', 'noPackage');
    await denied('2026-11-03T12:00:00.000Z', 'openingHours');
    await denied('2026-10-31T22:59:00.000Z', 'noPackage');

    // Packages without fees, so the only charges are the ones below.
    const basic = (await created('/packages', { name: 'Basic' })).id;
    const laserPack = (await created('/packages', { name: 'Laser pack' })).id;
    const give = async (member: number, pkg: number, fromDate: string, untilDate?: string) =>
      (await created(`/members/${member}/packages`, { package: pkg, fromDate, untilDate })).id as number;
    const adaBasic = await give(ids.ada, basic, '2026-10-01');
    const boBasic = await give(ids.bo, basic, '2026-11-10', '2026-11-20');
    await give(ids.cy, basic, '2026-09-01', '2026-10-31');
    await give(ids.cy, laserPack, '2026-11-05');
    await give(ids.di, basic, '2026-11-25', '2026-12-31');
    // No charge came from giving the free packages.
    expect((await api(owner, 'GET', '/charges')).json()).toEqual([]);

    const charge = (member: number, dateTime: string, price: string, extra = {}) =>
      created('/charges', { member, dateTime, price, description: `Charge ${price}`, ...extra });
    await charge(ids.ada, '2026-11-01T00:30:00.000Z', '20.00', { memberPackage: adaBasic });
    await charge(ids.bo, '2026-11-10T09:00:00.000Z', '12.50', { memberPackage: boBasic });
    await charge(ids.ada, '2026-11-02T09:30:00.000Z', '7.25', { resourceLog: logIds[0] });
    await charge(ids.ada, '2026-11-02T23:30:00.000Z', '3.10', { resourceLog: logIds[1] });
    // A booking of the printer, charged (stored as the booking rules would: this test is about the sums).
    const stamp = '2026-11-01T00:00:00.000Z';
    const booking = await t.hub.ctx.db
      .insertInto('bookings')
      .values({
        account: t.owner.accountId,
        resource: ids.printer,
        member: ids.cy,
        fromDateTime: '2026-11-20T09:00:00.000Z',
        untilDateTime: '2026-11-20T10:00:00.000Z',
        createdAt: stamp,
        updatedAt: stamp,
        updatedBy: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await charge(ids.cy, '2026-11-20T10:00:00.000Z', '4.00', { booking: booking.id });
    await charge(ids.cy, '2026-11-15T10:00:00.000Z', '5.00');
    await charge(ids.cy, '2026-10-31T22:30:00.000Z', '99.00');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('usage: sessions and hours per resource and day, in the space’s days', async () => {
    const r = await report('usage?from=2026-11-01&until=2026-11-30&interval=day');
    expect(r).toMatchObject({
      from: '2026-11-01',
      until: '2026-11-30',
      interval: 'day',
      timeZone: 'Europe/Vienna',
    });
    expect(r.periods).toHaveLength(30);
    expect(r.periods[0]).toEqual({ from: '2026-11-01', until: '2026-11-01' });
    // Every resource, in name order, the unused printer too.
    expect(r.resources.map((x: any) => x.name)).toEqual(['Door', 'Laser', 'Printer']);
    const laser = r.resources[1];
    expect(laser.sessions.slice(0, 4)).toEqual([1, 1, 1, 0]);
    expect(laser.hours.slice(0, 4)).toEqual([2, 1.5, 0.75, 0]);
    expect(laser.totalSessions).toBe(3);
    expect(laser.totalHours).toBe(4.25);
    expect(r.resources[0]).toMatchObject({ totalSessions: 1, totalHours: 0 });
    expect(r.resources[0].sessions[1]).toBe(1);
    expect(r.resources[2]).toMatchObject({ totalSessions: 0, totalHours: 0 });
    expect(r.resources[2].sessions).toEqual(Array(30).fill(0));
  });

  it('usage by week and by month: Monday-to-Sunday weeks, calendar months, cut to the range', async () => {
    const weeks = await report('usage?from=2026-11-01&until=2026-11-30&interval=week');
    expect(weeks.periods).toEqual([
      { from: '2026-11-01', until: '2026-11-01' },
      { from: '2026-11-02', until: '2026-11-08' },
      { from: '2026-11-09', until: '2026-11-15' },
      { from: '2026-11-16', until: '2026-11-22' },
      { from: '2026-11-23', until: '2026-11-29' },
      { from: '2026-11-30', until: '2026-11-30' },
    ]);
    const laser = weeks.resources.find((x: any) => x.name === 'Laser');
    expect(laser.sessions).toEqual([1, 2, 0, 0, 0, 0]);
    expect(laser.hours).toEqual([2, 2.25, 0, 0, 0, 0]);
    const months = await report('usage?from=2026-10-15&until=2026-12-31&interval=month');
    expect(months.periods).toEqual([
      { from: '2026-10-15', until: '2026-10-31' },
      { from: '2026-11-01', until: '2026-11-30' },
      { from: '2026-12-01', until: '2026-12-31' },
    ]);
    expect(months.resources.find((x: any) => x.name === 'Laser').sessions).toEqual([0, 3, 1]);
  });

  it('the default range is the 30 days up to today in the space, by day', async () => {
    const r = await report('usage');
    // 5 Dec 12:00 UTC is 5 Dec in Vienna.
    expect(r).toMatchObject({ from: '2026-11-06', until: '2026-12-05', interval: 'day' });
    expect(r.periods).toHaveLength(30);
    expect(r.resources.find((x: any) => x.name === 'Laser').totalSessions).toBe(1);
  });

  it('refusals: by reason, the most frequent first, the space’s days', async () => {
    const r = await report('refusals?from=2026-11-01&until=2026-11-30&interval=week');
    expect(r.total).toBe(3);
    expect(r.reasons).toEqual([
      { reason: 'noPackage', counts: [0, 2, 0, 0, 0, 0], total: 2 },
      { reason: 'openingHours', counts: [0, 1, 0, 0, 0, 0], total: 1 },
    ]);
    const october = await report('refusals?from=2026-10-31&until=2026-10-31');
    expect(october.reasons).toEqual([{ reason: 'noPackage', counts: [1], total: 1 }]);
  });

  it('members: active, new and ended by their packages', async () => {
    const r = await report('members?from=2026-11-01&until=2026-11-30&interval=week');
    expect(r.active).toEqual([1, 2, 3, 3, 3, 3]);
    expect(r.new).toEqual([0, 0, 1, 0, 1, 0]);
    expect(r.ended).toEqual([0, 0, 0, 1, 0, 0]);
    expect(r.totals).toEqual({ active: 4, new: 2, ended: 1 });
    const october = await report('members?from=2026-10-01&until=2026-10-31&interval=month');
    // Ada starts; Cy's Basic ends on 31 Oct but the Laser pack follows, so Cy has not ended.
    expect(october).toMatchObject({ active: [2], new: [1], ended: [0] });
  });

  it('revenue: by package, by resource and other, exact sums in the space’s days', async () => {
    const r = await report('revenue?from=2026-11-01&until=2026-11-30&interval=month');
    expect(r.total).toBe('51.85');
    expect(r.packages).toEqual([
      { package: expect.any(Number), name: 'Basic', amounts: ['32.50'], total: '32.50' },
    ]);
    // The laser through its logs, the printer through its booking.
    expect(r.resources).toEqual([
      { resource: ids.laser, name: 'Laser', amounts: ['10.35'], total: '10.35' },
      { resource: ids.printer, name: 'Printer', amounts: ['4.00'], total: '4.00' },
    ]);
    expect(r.other).toEqual({ amounts: ['5.00'], total: '5.00' });
    const days = await report('revenue?from=2026-11-01&until=2026-11-03');
    expect(days.packages[0].amounts).toEqual(['20.00', '0.00', '0.00']);
    expect(days.resources[0].amounts).toEqual(['0.00', '7.25', '3.10']);
    expect(days.total).toBe('30.35');
  });

  it('bad input answers 400 naming the field', async () => {
    const cases: [string, string][] = [
      ['from=2026-13-01', 'from'],
      ['until=2026-02-30', 'until'],
      ['from=yesterday', 'from'],
      ['from=2026-11-30&until=2026-11-01', 'until'],
      ['interval=year', 'interval'],
      ['from=2020-01-01&until=2026-01-01&interval=day', 'until'],
    ];
    for (const path of ['usage', 'refusals', 'members', 'revenue']) {
      for (const [query, field] of cases) {
        const res = await api(owner, 'GET', `/reports/${path}?${query}`);
        expect(res.statusCode, `${path}?${query}`).toBe(400);
        expect(res.json().message).toContain(`query.${field}`);
        expect(res.json().data.validation[0].path).toBe(field);
      }
    }
    // Weeks over six years are within the limit of 400 periods.
    expect(
      (await api(owner, 'GET', '/reports/usage?from=2020-01-01&until=2026-01-01&interval=week')).statusCode,
    ).toBe(200);
  });

  it('plain members are refused; other accounts see none of these figures', async () => {
    for (const path of ['usage', 'refusals', 'members', 'revenue']) {
      const res = await api(plain.token, 'GET', `/reports/${path}`);
      expect(res.statusCode).toBe(403);
    }
    const other = await t.newAccount('Other space', 'owner@other.example');
    const r = (await api(other.token, 'GET', '/reports/revenue?from=2026-11-01&until=2026-11-30')).json();
    expect(r.total).toBe('0.00');
    expect(r.packages).toEqual([]);
    const usage = (await api(other.token, 'GET', '/reports/usage?from=2026-11-01&until=2026-11-30')).json();
    expect(usage.resources).toEqual([]);
  });

  it('counts more rows than one read gives (the reads go page by page)', async () => {
    const saw = (await created('/resources', { space: t.owner.spaceId, name: 'Saw', controlType: 'machine' }))
      .id;
    const rows = Array.from({ length: 5001 }, (_, i) => {
      const at = Date.parse('2026-12-02T08:00:00.000Z') + i * 1000;
      return {
        account: t.owner.accountId,
        resource: saw,
        type: 'allowed',
        member: null,
        createdAt: new Date(at).toISOString(),
        stoppedAt: new Date(at + 36_000).toISOString(), // 0.01 h each
        updatedAt: new Date(at).toISOString(),
      };
    });
    for (let i = 0; i < rows.length; i += 500)
      await t.hub.ctx.db
        .insertInto('resource_logs')
        .values(rows.slice(i, i + 500))
        .execute();
    const r = await report('usage?from=2026-12-02&until=2026-12-02');
    expect(r.resources.find((x: any) => x.name === 'Saw')).toMatchObject({
      sessions: [5001],
      hours: [50.01],
      totalSessions: 5001,
    });
  });

  it('the reports are in the OpenAPI document, for admins', async () => {
    const doc = (await api(owner, 'GET', '/openapi.json')).json();
    for (const path of ['usage', 'refusals', 'members', 'revenue']) {
      const op = doc.paths[`/api/v1/reports/${path}`]?.get;
      expect(op.summary).toContain('(admins)');
      expect(op.description).toContain('time zone');
      expect(op.responses['403']).toBeTruthy();
      expect(op.parameters.map((p: any) => p.name)).toEqual(['from', 'until', 'interval']);
    }
  });
});

describe('report periods: the space’s days, weeks and months', () => {
  const now = new Date('2026-06-15T12:00:00.000Z');

  it('a spring-forward day in Vienna lasts 23 hours, and instants fall into its days', () => {
    const f = reportFrame({ from: '2026-03-29', until: '2026-03-30' }, 'Europe/Vienna', now);
    expect([f.startsAt, f.endsAt]).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-30T22:00:00.000Z']);
    expect(periodOfInstant(f, '2026-03-29T21:59:59.000Z')).toBe(0);
    expect(periodOfInstant(f, '2026-03-29T22:00:00.000Z')).toBe(1);
    expect(periodOfInstant(f, '2026-03-28T22:59:59.000Z')).toBe(-1);
  });

  it('weeks run Monday to Sunday across a year’s end; months are calendar months, February too', () => {
    const weeks = reportFrame({ from: '2026-12-30', until: '2027-01-12', interval: 'week' }, 'UTC', now);
    expect(weeks.periods).toEqual([
      { from: '2026-12-30', until: '2027-01-03' },
      { from: '2027-01-04', until: '2027-01-10' },
      { from: '2027-01-11', until: '2027-01-12' },
    ]);
    const months = reportFrame({ from: '2028-01-31', until: '2028-03-01', interval: 'month' }, 'UTC', now);
    expect(months.periods).toEqual([
      { from: '2028-01-31', until: '2028-01-31' },
      { from: '2028-02-01', until: '2028-02-29' },
      { from: '2028-03-01', until: '2028-03-01' },
    ]);
  });

  it('today is the space’s: shortly after midnight in Auckland it is already the next day', () => {
    const late = new Date('2026-06-15T12:30:00.000Z'); // 00:30 on 16 June in Auckland (UTC+12)
    expect(reportFrame({}, 'Pacific/Auckland', late)).toMatchObject({
      from: '2026-05-18',
      until: '2026-06-16',
    });
    expect(reportFrame({}, 'UTC', late)).toMatchObject({ from: '2026-05-17', until: '2026-06-15' });
  });
});
