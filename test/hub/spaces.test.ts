import ical from 'node-ical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { dayFromNow, insertResource, plainMember } from './spaces-support.js';

describeEachDialect('spaces: spaces, opening hours, holidays, calendar, billing settings', (dialect) => {
  let t: TestHub;
  let owner: string;
  let member: { memberId: number; token: string };
  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    member = await plainMember(t, 'Mia');
  });
  afterAll(async () => t?.close());

  const call = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  const newSpace = async (body: Record<string, unknown> = {}) => {
    const res = await call(owner, 'POST', '/spaces', {
      name: 'Workshop',
      timezone: 'Europe/Vienna',
      ...body,
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  };

  describe('spaces', () => {
    it('creates a space with its billing settings and reads it back', async () => {
      const space = await newSpace({ name: 'Wood shop', bookingSlotsPerHour: 4 });
      expect(space).toMatchObject({
        name: 'Wood shop',
        timezone: 'Europe/Vienna',
        account: t.owner.accountId,
        bookingSlotsPerHour: 4,
        bookingOpeningHours: true,
        calendarUrl: null,
        lockVersion: 1,
      });
      const billing = await call(owner, 'GET', `/spaces/${space.id}/billing-settings`);
      expect(billing.statusCode).toBe(200);
      expect(billing.json()).toMatchObject({ space: space.id, currency: 'EUR', nextInvoiceNumber: 1 });
      const read = await call(owner, 'GET', `/spaces/${space.id}?embed=billingSettings&embed=openingHours`);
      expect(read.json()._embedded).toMatchObject({ billingSettings: { space: space.id }, openingHours: [] });
    });

    it('refuses an unknown time zone, unknown fields and odd slot sizes with 400 and creates nothing', async () => {
      const before = Number((await call(owner, 'GET', '/spaces')).headers['x-total-count']);
      for (const body of [
        { name: 'X', timezone: 'Mars/Olympus_Mons' },
        { name: 'X', color: 'red' },
        { name: 'X', bookingSlotsPerHour: 7 },
      ]) {
        const res = await call(owner, 'POST', '/spaces', body);
        expect(res.statusCode).toBe(400);
      }
      expect(
        res400Message(await call(owner, 'POST', '/spaces', { name: 'X', timezone: 'Nope/Nope' })),
      ).toMatch(/timezone/);
      expect(Number((await call(owner, 'GET', '/spaces')).headers['x-total-count'])).toBe(before);
    });

    it('updates with lockVersion and answers 409 to a stale one', async () => {
      const space = await newSpace();
      const ok = await call(owner, 'PUT', `/spaces/${space.id}`, { ...space, name: 'Metal shop' });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ name: 'Metal shop', lockVersion: 2 });
      const stale = await call(owner, 'PUT', `/spaces/${space.id}`, { name: 'Again', lockVersion: 1 });
      expect(stale.statusCode).toBe(409);
      const bad = await call(owner, 'PUT', `/spaces/${space.id}`, { timezone: 'Not/AZone', lockVersion: 2 });
      expect(bad.statusCode).toBe(400);
    });

    it('lets a member read only their own space, and not change it', async () => {
      const other = await newSpace();
      const list = await call(member.token, 'GET', '/spaces');
      expect(list.json().map((s: any) => s.id)).toEqual([t.owner.spaceId]);
      expect((await call(member.token, 'GET', `/spaces/${other.id}`)).statusCode).toBe(404);
      const own = await call(member.token, 'GET', `/spaces/${t.owner.spaceId}`);
      expect(own.statusCode).toBe(200);
      expect(own.json().calendarToken).toBeNull();
      const put = await call(member.token, 'PUT', `/spaces/${t.owner.spaceId}`, {
        name: 'Mine',
        lockVersion: 1,
      });
      expect(put.statusCode).toBe(403);
      expect((await call(member.token, 'POST', '/spaces', { name: 'Mine' })).statusCode).toBe(403);
    });

    it('keeps other accounts out: their spaces answer 404', async () => {
      const other = await t.newAccount('Other space', 'other@test.example');
      expect((await call(other.token, 'GET', `/spaces/${t.owner.spaceId}`)).statusCode).toBe(404);
      expect((await call(other.token, 'DELETE', `/spaces/${t.owner.spaceId}`)).statusCode).toBe(404);
    });

    it('refuses to delete a space that still has resources or members, naming them', async () => {
      const space = await newSpace();
      const resource = await insertResource(t, { space: space.id });
      const blocked = await call(owner, 'DELETE', `/spaces/${space.id}`);
      expect(blocked.statusCode).toBe(409);
      expect(blocked.json().message).toMatch(/1 resource/);
      expect(blocked.json().data).toEqual({ resources: 1, members: 0 });
      await t.hub.ctx.db.deleteFrom('resources').where('id', '=', resource).execute();

      const withMember = await newSpace();
      await plainMember(t, 'Otto', withMember.id);
      const blocked2 = await call(owner, 'DELETE', `/spaces/${withMember.id}`);
      expect(blocked2.statusCode).toBe(409);
      expect(blocked2.json().message).toMatch(/1 member/);

      expect((await call(owner, 'DELETE', `/spaces/${space.id}`)).statusCode).toBe(204);
      expect((await call(owner, 'GET', `/spaces/${space.id}`)).statusCode).toBe(404);
    });
  });

  describe('opening hours', () => {
    it('replaces the whole list on PUT and reads it back in order', async () => {
      const space = await newSpace();
      const hours = [
        { dayOfWeek: 2, fromTime: '09:00', untilTime: '18:00' },
        { dayOfWeek: 1, fromTime: '13:00', untilTime: '18:00' },
        { dayOfWeek: 1, fromTime: '09:00', untilTime: '12:00' },
      ];
      const put = await call(owner, 'PUT', `/spaces/${space.id}/opening-hours`, hours);
      expect(put.statusCode).toBe(200);
      expect(put.json()).toEqual([hours[2], hours[1], hours[0]]);
      const replaced = await call(owner, 'PUT', `/spaces/${space.id}/opening-hours`, [
        { dayOfWeek: 6, fromTime: '10:00', untilTime: '24:00' },
      ]);
      expect(replaced.json()).toEqual([{ dayOfWeek: 6, fromTime: '10:00', untilTime: '24:00' }]);
      expect((await call(member.token, 'GET', `/spaces/${t.owner.spaceId}/opening-hours`)).statusCode).toBe(
        200,
      );
    });

    it('refuses overlapping and inverted ranges with 422 and keeps the old list', async () => {
      const space = await newSpace();
      const good = [{ dayOfWeek: 3, fromTime: '09:00', untilTime: '17:00' }];
      await call(owner, 'PUT', `/spaces/${space.id}/opening-hours`, good);
      const overlap = await call(owner, 'PUT', `/spaces/${space.id}/opening-hours`, [
        { dayOfWeek: 1, fromTime: '09:00', untilTime: '12:00' },
        { dayOfWeek: 1, fromTime: '11:00', untilTime: '14:00' },
      ]);
      expect(overlap.statusCode).toBe(422);
      expect(overlap.json().message).toMatch(/overlaps/);
      const inverted = await call(owner, 'PUT', `/spaces/${space.id}/opening-hours`, [
        { dayOfWeek: 1, fromTime: '18:00', untilTime: '09:00' },
      ]);
      expect(inverted.statusCode).toBe(422);
      const badDay = await call(owner, 'PUT', `/spaces/${space.id}/opening-hours`, [
        { dayOfWeek: 8, fromTime: '09:00', untilTime: '10:00' },
      ]);
      expect(badDay.statusCode).toBe(400);
      expect((await call(owner, 'GET', `/spaces/${space.id}/opening-hours`)).json()).toEqual(good);
    });
  });

  describe('holidays', () => {
    it('creates, lists upcoming ones by default, reads, updates on both paths and deletes', async () => {
      const space = await newSpace();
      const base = `/spaces/${space.id}/holidays`;
      const future = await call(owner, 'POST', base, {
        title: 'Summer break',
        fromDateTime: `${dayFromNow(20)}T00:00`,
        untilDateTime: `${dayFromNow(30)}T00:00`,
      });
      expect(future.statusCode).toBe(201);
      expect(future.json()).toMatchObject({
        space: space.id,
        affects: 'all',
        title: 'Summer break',
        lockVersion: 1,
      });
      const past = await call(owner, 'POST', base, {
        title: 'Last winter',
        fromDateTime: `${dayFromNow(-30)}T00:00`,
        untilDateTime: `${dayFromNow(-20)}T00:00`,
      });
      expect(past.statusCode).toBe(201);

      const upcoming = await call(owner, 'GET', base);
      expect(upcoming.json().map((h: any) => h.title)).toEqual(['Summer break']);
      expect(upcoming.headers['x-total-count']).toBe('1');
      const all = await call(owner, 'GET', `${base}?past=true`);
      expect(all.json().map((h: any) => h.title)).toEqual(['Last winter', 'Summer break']);
      const embedded = await call(owner, 'GET', `/spaces/${space.id}?embed=holidays`);
      expect(embedded.json()._embedded.holidays.map((h: any) => h.id)).toEqual([future.json().id]);

      const id = future.json().id;
      expect((await call(owner, 'GET', `${base}/${id}`)).json().title).toBe('Summer break');
      const singular = await call(owner, 'PUT', `/space/${space.id}/holidays/${id}`, {
        title: 'Long summer break',
        lockVersion: 1,
      });
      expect(singular.statusCode).toBe(200);
      expect(singular.json()).toMatchObject({ title: 'Long summer break', lockVersion: 2 });
      const plural = await call(owner, 'PUT', `${base}/${id}`, { title: 'Break', lockVersion: 2 });
      expect(plural.json().lockVersion).toBe(3);
      expect((await call(owner, 'PUT', `${base}/${id}`, { title: 'Old', lockVersion: 1 })).statusCode).toBe(
        409,
      );
      const inverted = await call(owner, 'PUT', `${base}/${id}`, {
        untilDateTime: `${dayFromNow(10)}T00:00`,
        lockVersion: 3,
      });
      expect(inverted.statusCode).toBe(422);

      expect((await call(owner, 'DELETE', `/space/${space.id}/holidays/${id}`)).statusCode).toBe(204);
      expect((await call(owner, 'GET', `${base}/${id}`)).statusCode).toBe(404);
      expect((await call(owner, 'DELETE', `${base}/${past.json().id}`)).statusCode).toBe(204);
    });

    it('refuses bad times: wrong format 400, until before from 422', async () => {
      const space = await newSpace();
      const base = `/spaces/${space.id}/holidays`;
      const wrong = await call(owner, 'POST', base, {
        fromDateTime: '2026-12-24',
        untilDateTime: '2026-12-26T00:00',
      });
      expect(wrong.statusCode).toBe(400);
      const notReal = await call(owner, 'POST', base, {
        fromDateTime: '2026-02-30T00:00',
        untilDateTime: '2026-03-02T00:00',
      });
      expect(notReal.statusCode).toBe(400);
      const inverted = await call(owner, 'POST', base, {
        fromDateTime: '2026-12-26T00:00',
        untilDateTime: '2026-12-24T00:00',
      });
      expect(inverted.statusCode).toBe(422);
      expect((await call(owner, 'GET', `${base}?past=true`)).json()).toEqual([]);
    });

    it('lets members read but not write holidays of their space', async () => {
      const base = `/spaces/${t.owner.spaceId}/holidays`;
      expect((await call(member.token, 'GET', base)).statusCode).toBe(200);
      const res = await call(member.token, 'POST', base, {
        fromDateTime: '2030-01-01T00:00',
        untilDateTime: '2030-01-02T00:00',
      });
      expect(res.statusCode).toBe(403);
    });
  });

  describe('calendar feed', () => {
    it('serves the feed of a space in UTC (the zone of a first start without TZ)', async () => {
      const space = await newSpace({ timezone: 'UTC', bookingWindowMaxDays: 400 });
      const year = new Date().getUTCFullYear() + 1;
      expect(
        (
          await call(owner, 'POST', `/spaces/${space.id}/holidays`, {
            title: 'Inventory',
            fromDateTime: `${year}-01-05T08:00`,
            untilDateTime: `${year}-01-05T18:00`,
          })
        ).statusCode,
      ).toBe(201);
      const url = new URL(
        (await call(owner, 'PUT', `/spaces/${space.id}/calendar-token`)).json().calendarUrl,
      );
      const feed = await t.app.inject({ method: 'GET', url: url.pathname });
      expect(feed.statusCode).toBe(200);
      const events = Object.values(ical.sync.parseICS(feed.body)).filter(
        (c: any) => c.type === 'VEVENT',
      ) as any[];
      expect(events).toHaveLength(1);
      expect(events[0].start.toISOString()).toBe(`${year}-01-05T08:00:00.000Z`);
      expect(events[0].end.toISOString()).toBe(`${year}-01-05T18:00:00.000Z`);
    });

    it('serves bookings and holidays as iCalendar in the space time zone; new tokens and DELETE cut old links', async () => {
      const space = await newSpace({ bookingWindowMaxDays: 400 });
      const year = new Date().getUTCFullYear() + 1;
      const resource = await insertResource(t, { space: space.id, name: 'Lathe', canBeBooked: 1 });
      // Summer time in Vienna (UTC+2): 10:00-11:30 local is 08:00-09:30 UTC.
      const booking = await call(owner, 'POST', '/bookings', {
        resource,
        fromDateTime: `${year}-07-06T08:00:00.000Z`,
        untilDateTime: `${year}-07-06T09:30:00.000Z`,
      });
      expect(booking.statusCode).toBe(201);
      // Winter (UTC+1): the holiday is space-local.
      const holiday = await call(owner, 'POST', `/spaces/${space.id}/holidays`, {
        title: 'Christmas',
        fromDateTime: `${year}-12-24T12:00`,
        untilDateTime: `${year}-12-27T00:00`,
      });
      expect(holiday.statusCode).toBe(201);

      const put = await call(owner, 'PUT', `/spaces/${space.id}/calendar-token`);
      expect(put.statusCode).toBe(200);
      const url = new URL(put.json().calendarUrl);
      expect(url.pathname).toMatch(/^\/api\/v1\/calendar\/[0-9a-f-]{36}\.ics$/);
      const read = await call(owner, 'GET', `/spaces/${space.id}`);
      expect(read.json().calendarUrl).toBe(put.json().calendarUrl);

      const feed = await t.app.inject({ method: 'GET', url: url.pathname });
      expect(feed.statusCode).toBe(200);
      expect(feed.headers['content-type']).toMatch(/^text\/calendar/);
      expect(feed.body).toContain('BEGIN:VTIMEZONE');
      expect(feed.body).toContain('TZID:Europe/Vienna');
      expect(feed.body).toMatch(/DTSTAMP:\d{8}T\d{6}Z/);
      expect(feed.body).toContain(`DTSTART;TZID=Europe/Vienna:${year}0706T100000`);
      const events = Object.values(ical.sync.parseICS(feed.body)).filter(
        (c: any) => c.type === 'VEVENT',
      ) as any[];
      const lathe = events.find((e) => String(e.summary).startsWith('Lathe'));
      expect(lathe.start.toISOString()).toBe(`${year}-07-06T08:00:00.000Z`);
      expect(lathe.end.toISOString()).toBe(`${year}-07-06T09:30:00.000Z`);
      const christmas = events.find((e) => String(e.summary).includes('Christmas'));
      expect(christmas.start.toISOString()).toBe(`${year}-12-24T11:00:00.000Z`);
      expect(christmas.end.toISOString()).toBe(`${year}-12-26T23:00:00.000Z`);

      // A cancelled booking leaves the feed.
      const cancelled = await call(owner, 'PUT', `/bookings/${booking.json().id}`, {
        state: 'cancelled',
        lockVersion: 1,
      });
      expect(cancelled.statusCode).toBe(200);
      const after = await t.app.inject({ method: 'GET', url: url.pathname });
      expect(after.body).not.toContain('Lathe');

      const rotated = await call(owner, 'PUT', `/spaces/${space.id}/calendar-token`);
      expect(rotated.json().calendarUrl).not.toBe(put.json().calendarUrl);
      expect((await t.app.inject({ method: 'GET', url: url.pathname })).statusCode).toBe(404);
      const newPath = new URL(rotated.json().calendarUrl).pathname;
      expect((await t.app.inject({ method: 'GET', url: newPath })).statusCode).toBe(200);

      expect((await call(owner, 'DELETE', `/spaces/${space.id}/calendar-token`)).statusCode).toBe(204);
      expect((await t.app.inject({ method: 'GET', url: newPath })).statusCode).toBe(404);
      expect((await call(owner, 'GET', `/spaces/${space.id}`)).json().calendarUrl).toBeNull();
      expect((await call(member.token, 'PUT', `/spaces/${t.owner.spaceId}/calendar-token`)).statusCode).toBe(
        403,
      );
    });
  });

  describe('billing settings', () => {
    it('updates through both paths with lockVersion, and DELETE .../stripe clears only the payment provider', async () => {
      const space = await newSpace();
      const settings = (await call(owner, 'GET', `/spaces/${space.id}/billing-settings`)).json();
      const put = await call(owner, 'PUT', `/space-billing-settings/${settings.id}`, {
        ...settings,
        currency: 'chf',
        taxPercent: '7.7',
        invoiceNumberPrefix: 'WS-',
        nextInvoiceNumber: 100,
        stripeUser: 'acct_123',
        stripePublicKey: 'pk_test_1',
        stripeLivemode: true,
        sepaIban: 'AT611904300234573201',
      });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({
        currency: 'CHF',
        taxPercent: '7.7',
        nextInvoiceNumber: 100,
        stripeUser: 'acct_123',
        stripeLivemode: true,
        lockVersion: 2,
      });
      const stale = await call(owner, 'PUT', `/spaces/${space.id}/billing-settings`, {
        currency: 'USD',
        lockVersion: 1,
      });
      expect(stale.statusCode).toBe(409);
      const alias = await call(owner, 'PUT', `/spaces/${space.id}/billing-settings`, {
        currency: 'USD',
        lockVersion: 2,
      });
      expect(alias.json()).toMatchObject({ currency: 'USD', lockVersion: 3 });
      const bad = await call(owner, 'PUT', `/spaces/${space.id}/billing-settings`, {
        taxPercent: 'lots',
        lockVersion: 3,
      });
      expect(bad.statusCode).toBe(400);

      expect((await call(owner, 'DELETE', `/space/${space.id}/billing-settings/stripe`)).statusCode).toBe(
        204,
      );
      const cleared = (await call(owner, 'GET', `/spaces/${space.id}/billing-settings`)).json();
      expect(cleared).toMatchObject({
        stripeUser: null,
        stripePublicKey: null,
        stripeLivemode: false,
        sepaIban: 'AT611904300234573201',
        currency: 'USD',
        nextInvoiceNumber: 100,
      });
      expect((await call(owner, 'DELETE', `/spaces/${space.id}/billing-settings/stripe`)).statusCode).toBe(
        204,
      );
      expect(
        (await call(member.token, 'DELETE', `/space/${t.owner.spaceId}/billing-settings/stripe`)).statusCode,
      ).toBe(403);
      expect(
        (await call(member.token, 'PUT', `/space-billing-settings/${settings.id}`, { lockVersion: 1 }))
          .statusCode,
      ).toBe(404);
    });

    it('are the admins’: a plain member reads no bank account or Stripe key of their own space, by any path', async () => {
      const own = (await call(owner, 'GET', `/spaces/${t.owner.spaceId}/billing-settings`)).json();
      await call(owner, 'PUT', `/space-billing-settings/${own.id}`, {
        stripeUser: 'acct_secret',
        sepaIban: 'AT611904300234573201',
        lockVersion: own.lockVersion,
      });
      const direct = await call(member.token, 'GET', `/spaces/${t.owner.spaceId}/billing-settings`);
      expect(direct.statusCode).toBe(403);
      expect(direct.body).not.toContain('acct_secret');
      expect((await call(member.token, 'GET', `/space-billing-settings/${own.id}`)).statusCode).toBe(404);
      const embedded = await call(member.token, 'GET', '/spaces?embed=billingSettings&embed=openingHours');
      expect(embedded.statusCode).toBe(200);
      expect(embedded.body).not.toContain('acct_secret');
      expect(embedded.body).not.toContain('AT611904300234573201');
      expect(embedded.json()[0]._embedded).toHaveProperty('openingHours');
      // The admin still reads them, embedded too.
      const admin = await call(owner, 'GET', '/spaces?embed=billingSettings');
      expect(admin.body).toContain('acct_secret');
    });
  });
});

function res400Message(res: { statusCode: number; json(): any }): string {
  expect(res.statusCode).toBe(400);
  return res.json().message;
}
