import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { dayFromNow, insertResource, plainMember } from './spaces-support.js';

/** Every path of the spaces area, in an order where each step's record exists, with its status. */
describeEachDialect('spaces area: every path answers its status', (dialect) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(dialect);
  });
  afterAll(async () => t?.close());

  it('walks spaces, holidays, opening hours, calendar, billing, training and bookings', async () => {
    const owner = t.owner.token;
    const mia = await plainMember(t, 'Mia');
    const ids: Record<string, number> = {};
    const step = async (method: string, path: string, status: number, payload?: unknown, token = owner) => {
      const res = await t.call(token, {
        method: method as 'GET',
        url: `/api/v1${path}`,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(status);
      return res.statusCode === 204 || res.body === '' ? null : res.json();
    };

    ids.space = (await step('POST', '/spaces', 201, { name: 'Walk', timezone: 'Europe/Vienna' })).id;
    const s = `/spaces/${ids.space}`;
    await step('GET', '/spaces', 200);
    await step('GET', `${s}?embed=holidays&embed=openingHours&embed=billingSettings`, 200);
    await step('PUT', s, 200, { name: 'Walked', lockVersion: 1 });

    await step('PUT', `${s}/opening-hours`, 200, [{ dayOfWeek: 1, fromTime: '08:00', untilTime: '20:00' }]);
    await step('GET', `${s}/opening-hours`, 200);
    await step('PUT', `${s}/opening-hours`, 200, []);

    const from = `${dayFromNow(40)}T00:00`;
    const until = `${dayFromNow(41)}T00:00`;
    ids.holiday = (
      await step('POST', `${s}/holidays`, 201, { title: 'Off', fromDateTime: from, untilDateTime: until })
    ).id;
    await step('GET', `${s}/holidays`, 200);
    await step('GET', `${s}/holidays?past=true`, 200);
    await step('GET', `${s}/holidays/${ids.holiday}`, 200);
    await step('PUT', `/space/${ids.space}/holidays/${ids.holiday}`, 200, { title: 'Off!', lockVersion: 1 });
    await step('PUT', `${s}/holidays/${ids.holiday}`, 200, { title: 'Off!!', lockVersion: 2 });
    await step('DELETE', `/space/${ids.space}/holidays/${ids.holiday}`, 204);
    ids.holiday2 = (
      await step('POST', `${s}/holidays`, 201, { fromDateTime: from, untilDateTime: until })
    ).id;
    await step('DELETE', `${s}/holidays/${ids.holiday2}`, 204);
    await step('GET', `${s}/holidays/${ids.holiday2}`, 404);

    const { calendarUrl } = await step('PUT', `${s}/calendar-token`, 200);
    const feed = await t.app.inject({ method: 'GET', url: new URL(calendarUrl).pathname });
    expect(feed.statusCode).toBe(200);
    await step('DELETE', `${s}/calendar-token`, 204);
    expect((await t.app.inject({ method: 'GET', url: new URL(calendarUrl).pathname })).statusCode).toBe(404);

    const billing = await step('GET', `${s}/billing-settings`, 200);
    await step('GET', `/space-billing-settings/${billing.id}`, 200);
    await step('PUT', `/space-billing-settings/${billing.id}`, 200, { taxPercent: '20', lockVersion: 1 });
    await step('PUT', `${s}/billing-settings`, 200, { currency: 'EUR', lockVersion: 2 });
    await step('DELETE', `/space/${ids.space}/billing-settings/stripe`, 204);
    await step('DELETE', `${s}/billing-settings/stripe`, 204);

    ids.resource = await insertResource(t, { space: t.owner.spaceId, canBeBooked: 1 });
    ids.course = (
      await step('POST', '/training-courses', 201, { title: 'Intro', resources: [ids.resource] })
    ).id;
    await step('GET', '/training-courses', 200);
    await step('GET', `/training-courses/${ids.course}`, 200);
    await step('PUT', `/training-courses/${ids.course}`, 200, { notes: 'Bring goggles', lockVersion: 1 });
    ids.training = (
      await step('POST', `/members/${mia.memberId}/trainings`, 201, { trainingCourse: ids.course })
    ).id;
    await step('GET', `/members/${mia.memberId}/trainings`, 200);
    await step('GET', `/members/${mia.memberId}/trainings/${ids.training}`, 200);
    await step('DELETE', `/members/${mia.memberId}/trainings/${ids.training}`, 204);
    await step('DELETE', `/training-courses/${ids.course}`, 204);

    const start = new Date(`${dayFromNow(2)}T10:00:00.000Z`).toISOString();
    const end = new Date(`${dayFromNow(2)}T11:00:00.000Z`).toISOString();
    const booking = await step(
      'POST',
      '/bookings',
      201,
      { resource: ids.resource, fromDateTime: start, untilDateTime: end },
      mia.token,
    );
    await step('GET', '/bookings', 200);
    await step('GET', `/bookings?resource=${ids.resource}&member=${mia.memberId}&state=confirmed`, 200);
    await step('GET', `/bookings/${booking.id}`, 200, undefined, mia.token);
    await step('PUT', `/bookings/${booking.id}`, 200, { state: 'cancelled', lockVersion: 1 }, mia.token);
    await step('DELETE', `/bookings/${booking.id}`, 403, undefined, mia.token);
    await step('DELETE', `/bookings/${booking.id}`, 204);
    await step('GET', `/bookings/${booking.id}`, 404);

    await step('DELETE', s, 204);
    await step('GET', s, 404);
    // Unauthenticated calls are refused everywhere but the feed.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/spaces' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/bookings' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/calendar/nope.ics' })).statusCode).toBe(404);
  });
});
