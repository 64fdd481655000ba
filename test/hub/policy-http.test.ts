import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * The access policy as members meet it: switch-on through the HTTP API with a set clock, for a
 * space in Europe/Vienna open Mon-Fri 09:00-18:00 (issues 4 and 5, "Done when").
 */
describeEachDialect('access policy through switch-on (time, holidays, training, packages)', (dialect) => {
  let t: TestHub;
  let now = new Date('2026-03-23T09:00:00.000Z');
  const agents: FakeAgent[] = [];
  let owner: string;
  let space: number;
  let printerType: number;
  let printer: { id: number; switchOnCode: string };
  let laser: { id: number; switchOnCode: string };

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const at = (iso: string) => {
    now = new Date(iso);
  };

  async function machine(body: Record<string, unknown>) {
    const r = (await api(owner, 'POST', '/resources', { space, controlType: 'machine', ...body })).json();
    await api(owner, 'PUT', `/resources/${r.id}/bridge`, {});
    const key = (await api(owner, 'GET', `/resources/${r.id}/bridge/api-key`)).json().apiKey;
    agents.push(await connectFakeAgent((await urls).mqttUrl, r.id, key));
    return r;
  }
  async function member(name: string) {
    const m = (
      await api(owner, 'POST', '/members', {
        firstName: name,
        emailAddress: `${name.toLowerCase()}@vienna.example`,
      })
    ).json();
    const key = (await api(owner, 'POST', '/api-keys', { member: m.id })).json();
    return {
      id: m.id as number,
      token: (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token as string,
    };
  }
  async function givePackage(memberId: number, permission: Record<string, unknown>) {
    const pkg = (await api(owner, 'POST', '/packages', { name: `Package for ${memberId}` })).json();
    expect((await api(owner, 'POST', `/packages/${pkg.id}/permissions`, permission)).statusCode).toBe(201);
    expect(
      (await api(owner, 'POST', `/members/${memberId}/packages`, { package: pkg.id, fromDate: '2026-01-01' }))
        .statusCode,
    ).toBe(201);
  }
  const switchOn = (token: string, r: { id: number; switchOnCode: string }) =>
    api(token, 'POST', `/resources/${r.id}/switch-on`, { code: r.switchOnCode });
  const switchOff = (r: { id: number }) => api(owner, 'POST', `/resources/${r.id}/bridge/switch-off`);

  let urls: Promise<{ mqttUrl: string }>;
  let ada: { id: number; token: string };
  let ben: { id: number; token: string };
  let cleo: { id: number; token: string };

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock: { now: () => now } });
    owner = t.owner.token;
    urls = t.listen();
    space = t.owner.spaceId;
    const current = (await api(owner, 'GET', `/spaces/${space}`)).json();
    expect(
      (
        await api(owner, 'PUT', `/spaces/${space}`, {
          lockVersion: current.lockVersion,
          timezone: 'Europe/Vienna',
        })
      ).statusCode,
    ).toBe(200);
    const weekdays = [1, 2, 3, 4, 5].map((dayOfWeek) => ({
      dayOfWeek,
      fromTime: '09:00',
      untilTime: '18:00',
    }));
    expect((await api(owner, 'PUT', `/spaces/${space}/opening-hours`, weekdays)).statusCode).toBe(200);
    expect(
      (
        await api(owner, 'POST', `/spaces/${space}/holidays`, {
          title: 'Closed',
          fromDateTime: '2026-03-25T00:00',
          untilDateTime: '2026-03-26T00:00',
        })
      ).statusCode,
    ).toBe(201);
    printerType = (await api(owner, 'POST', '/resource-types', { name: '3D printer' })).json().id;
    printer = await machine({ name: 'Prusa', type: printerType, canBeBooked: true });
    laser = await machine({ name: 'Laser', requiresTraining: true });
    const course = (
      await api(owner, 'POST', '/training-courses', { title: 'Laser safety', resources: [laser.id] })
    ).json();
    ada = await member('Ada');
    ben = await member('Ben');
    cleo = await member('Cleo');
    await givePackage(ada.id, { type: 'resourceType', resourceType: printerType });
    await givePackage(ada.id, { type: 'resource', resource: laser.id });
    await givePackage(ben.id, { type: 'everything' });
    await givePackage(cleo.id, {
      type: 'everything',
      timeType: 'custom',
      times: [{ dayOfWeek: 1, fromTime: '09:00', untilTime: '12:00' }],
    });
    expect(
      (
        await api(owner, 'POST', `/members/${ada.id}/trainings`, {
          trainingCourse: course.id,
          date: '2026-01-10',
        })
      ).statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
    await t?.close();
  });

  describe('opening hours, holidays and DST (Europe/Vienna)', () => {
    it('allows a member with a package for the printer type on a weekday, up to closing time', async () => {
      at('2026-03-23T09:00:00.000Z'); // Monday 10:00 CET
      const res = await switchOn(ada.token, printer);
      expect(res.statusCode).toBe(200);
      expect(res.json().maxDuration).toBe(8 * 3600); // until 18:00
      await switchOff(printer);
    });

    it('denies on Saturday with openingHours', async () => {
      at('2026-03-28T10:00:00.000Z'); // Saturday 11:00
      const res = await switchOn(ada.token, printer);
      expect(res.statusCode).toBe(403);
      expect(res.json().data.reason).toBe('openingHours');
    });

    it('denies on the holiday with holiday', async () => {
      at('2026-03-25T10:00:00.000Z'); // Wednesday, a holiday
      const res = await switchOn(ada.token, printer);
      expect(res.statusCode).toBe(403);
      expect(res.json().data.reason).toBe('holiday');
    });

    it('reads local time across the DST change: 07:30 UTC is closed in winter and open in summer', async () => {
      at('2026-03-27T07:30:00.000Z'); // Friday 08:30 CET: closed
      expect((await switchOn(ben.token, printer)).json().data.reason).toBe('openingHours');
      at('2026-03-30T07:30:00.000Z'); // Monday 09:30 CEST (after 2026-03-29): open
      const res = await switchOn(ben.token, printer);
      expect(res.statusCode).toBe(200);
      expect(res.json().maxDuration).toBe(8.5 * 3600); // until 18:00 CEST = 16:00 UTC
      await switchOff(printer);
    });

    it('limits maxDuration to the next booking by someone else', async () => {
      at('2026-03-23T09:00:00.000Z'); // Monday 10:00 CET
      const booking = await api(owner, 'POST', '/bookings', {
        resource: printer.id,
        member: ben.id,
        fromDateTime: '2026-03-23T11:00:00.000Z',
        untilDateTime: '2026-03-23T12:00:00.000Z',
      });
      expect(booking.statusCode).toBe(201);
      const res = await switchOn(ada.token, printer);
      expect(res.statusCode).toBe(200);
      expect(res.json().maxDuration).toBe(2 * 3600);
      await switchOff(printer);
      at('2026-03-23T11:30:00.000Z'); // during Ben's booking
      expect((await switchOn(ada.token, printer)).json().data.reason).toBe('booking');
      expect((await switchOn(ben.token, printer)).statusCode).toBe(200);
      await switchOff(printer);
    });
  });

  describe('training and packages', () => {
    it('allows the trained member on a resource that requires training, and denies the untrained one', async () => {
      at('2026-03-24T09:00:00.000Z'); // Tuesday 10:00
      expect((await switchOn(ada.token, laser)).statusCode).toBe(200);
      await switchOff(laser);
      const res = await switchOn(ben.token, laser);
      expect(res.statusCode).toBe(403);
      expect(res.json().data.reason).toBe('noPermission');
    });

    it('denies noPackage where no package covers the resource, and timeTable outside the permitted hours', async () => {
      at('2026-03-24T09:00:00.000Z');
      const dan = await member('Dan');
      expect((await switchOn(dan.token, printer)).json().data.reason).toBe('noPackage');
      at('2026-03-23T09:00:00.000Z'); // Monday 10:00: inside Cleo's 09:00-12:00
      const inside = await switchOn(cleo.token, printer);
      expect(inside.statusCode).toBe(200);
      expect(inside.json().maxDuration).toBe(2 * 3600); // until 12:00
      await switchOff(printer);
      at('2026-03-23T12:00:00.000Z'); // Monday 13:00
      expect((await switchOn(cleo.token, printer)).json().data.reason).toBe('timeTable');
    });

    it('bills a 90-minute session once, after the discount and credits; invoice, cancel, payment', async () => {
      at('2026-03-23T09:00:00.000Z'); // Monday 10:00
      const ultimaker = await machine({
        name: 'Ultimaker',
        pricePerUsage: '1.00',
        pricePerTimeBusy: '1.50',
        pricePerTimeBusySeconds: 900,
      });
      const eva = await member('Eva');
      const pkg = (await api(owner, 'POST', '/packages', { name: 'Printing' })).json();
      await api(owner, 'POST', `/packages/${pkg.id}/permissions`, {
        type: 'resource',
        resource: ultimaker.id,
        usageFeeDiscountPercent: '10',
      });
      const credit = (await api(owner, 'POST', `/packages/${pkg.id}/credits`)).json();
      await api(owner, 'PUT', `/packages/${pkg.id}/credits/${credit.id}`, {
        ...credit,
        amount: '5',
        scope: 'usage',
      });
      await api(owner, 'POST', `/members/${eva.id}/packages`, { package: pkg.id, fromDate: '2026-01-01' });

      expect((await switchOn(eva.token, ultimaker)).statusCode).toBe(200);
      at('2026-03-23T10:30:00.000Z'); // 90 minutes later
      expect((await switchOff(ultimaker)).statusCode).toBe(201);
      // 1.00 per use + 6 quarter hours at 1.50 = 10.00; 10 % off = 9.00; 5.00 from the credit = 4.00.
      const charges = (await api(owner, 'GET', `/charges?member=${eva.id}`))
        .json()
        .filter((c: any) => c.resourceLog);
      expect(charges).toHaveLength(1);
      expect(charges[0]).toMatchObject({ price: '4.00', invoice: null });

      const first = (await api(owner, 'POST', '/invoices', { member: eva.id })).json();
      const details = (await api(owner, 'GET', `/invoices/${first.id}/details`)).json();
      expect(details.charges.map((c: any) => c.id)).toContain(charges[0].id);
      const cancelled = await api(owner, 'POST', `/invoices/${first.id}/cancel`);
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toEqual({});
      expect((await api(owner, 'GET', `/charges/${charges[0].id}`)).json().invoice).toBeNull();

      const second = (await api(owner, 'POST', '/invoices', { member: eva.id })).json();
      // Gapless: the next number after the cancelled invoice's.
      expect(Number(second.number.replace(/\D/g, ''))).toBe(Number(first.number.replace(/\D/g, '')) + 1);
      expect(
        (await api(owner, 'POST', '/payments', { member: eva.id, total: second.total })).statusCode,
      ).toBe(201);
      expect((await api(owner, 'GET', `/invoices/${second.id}`)).json().state).toBe('paid');
    });

    it('lets the owner pass the time, package and training rules but not a locked resource', async () => {
      at('2026-03-28T10:00:00.000Z'); // Saturday
      expect((await switchOn(owner, laser)).statusCode).toBe(200);
      await switchOff(laser);
      const current = (await api(owner, 'GET', `/resources/${laser.id}`)).json();
      await api(owner, 'PUT', `/resources/${laser.id}`, {
        lockVersion: current.lockVersion,
        state: 'locked',
      });
      expect((await switchOn(owner, laser)).json().data.reason).toBe('inactive');
    });
  });
});
