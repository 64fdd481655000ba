import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zonedInstant } from '../../hub/src/kernel/zoned-time.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { dayFromNow, insertResource, plainMember } from './spaces-support.js';

const VIENNA = 'Europe/Vienna';
/** Instant of a Vienna wall time `n` days from now at HH:MM. */
const local = (n: number, time: string) => zonedInstant(`${dayFromNow(n)}T${time}`, VIENNA).toISOString();

describeEachDialect('bookings', (dialect) => {
  let t: TestHub;
  let owner: string;
  let spaceId: number;
  let resource: number;
  let anna: { memberId: number; token: string };
  let bert: { memberId: number; token: string };
  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    const space = await t.call(owner, {
      method: 'POST',
      url: '/api/v1/spaces',
      payload: { name: 'Vienna lab', timezone: VIENNA, bookingSlotsPerHour: 2, bookingWindowMaxDays: 14 },
    });
    spaceId = space.json().id;
    resource = await insertResource(t, { space: spaceId, name: 'Laser', canBeBooked: 1 });
    anna = await plainMember(t, 'Anna', spaceId);
    bert = await plainMember(t, 'Bert', spaceId);
  });
  afterAll(async () => t?.close());

  const book = (token: string, body: Record<string, unknown>) =>
    t.call(token, { method: 'POST', url: '/api/v1/bookings', payload: { resource, ...body } });
  const count = async () =>
    Number(
      (await t.call(owner, { method: 'GET', url: '/api/v1/bookings?limit=1' })).headers['x-total-count'],
    );

  it('lets a member book for themselves and an admin for anyone; members see only their own', async () => {
    const own = await book(anna.token, { fromDateTime: local(2, '10:00'), untilDateTime: local(2, '11:00') });
    expect(own.statusCode).toBe(201);
    expect(own.json()).toMatchObject({
      member: anna.memberId,
      resource,
      state: 'confirmed',
      charged: false,
      fromDateTime: local(2, '10:00'),
      lockVersion: 1,
    });
    const forOther = await book(anna.token, {
      member: bert.memberId,
      fromDateTime: local(2, '12:00'),
      untilDateTime: local(2, '13:00'),
    });
    expect(forOther.statusCode).toBe(403);
    const byAdmin = await book(owner, {
      member: bert.memberId,
      fromDateTime: local(2, '12:00'),
      untilDateTime: local(2, '13:00'),
    });
    expect(byAdmin.statusCode).toBe(201);
    expect(byAdmin.json().member).toBe(bert.memberId);

    const annasList = await t.call(anna.token, { method: 'GET', url: '/api/v1/bookings' });
    expect(annasList.json().map((b: any) => b.id)).toEqual([own.json().id]);
    const hidden = await t.call(anna.token, { method: 'GET', url: `/api/v1/bookings/${byAdmin.json().id}` });
    expect(hidden.statusCode).toBe(404);
    const filtered = await t.call(owner, {
      method: 'GET',
      url: `/api/v1/bookings?resource=${resource}&member=${bert.memberId}&state=confirmed&from=${encodeURIComponent(local(2, '11:30'))}&until=${encodeURIComponent(local(2, '14:00'))}`,
    });
    expect(filtered.json().map((b: any) => b.id)).toEqual([byAdmin.json().id]);
  });

  it('refuses what breaks the rules with a clear error and stores nothing', async () => {
    const before = await count();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ fromDateTime: local(3, '10:15'), untilDateTime: local(3, '11:00') }, 422, 'notAlignedToSlots'],
      [{ fromDateTime: local(3, '11:00'), untilDateTime: local(3, '10:00') }, 422, 'invalidRange'],
      [{ fromDateTime: local(20, '10:00'), untilDateTime: local(20, '11:00') }, 422, 'outsideBookingWindow'],
      [{ fromDateTime: local(-1, '10:00'), untilDateTime: local(-1, '11:00') }, 422, 'outsideBookingWindow'],
      [
        { resource: 999999, fromDateTime: local(3, '10:00'), untilDateTime: local(3, '11:00') },
        422,
        'unknownResource',
      ],
    ];
    for (const [body, status, key] of cases) {
      const res = await book(anna.token, body);
      expect(res.statusCode, key).toBe(status);
      expect(res.json().data, key).toHaveProperty(key);
      expect(res.json().data.rule, key).toBe(key);
    }
    const garbage = await book(anna.token, { fromDateTime: 'soon', untilDateTime: local(3, '11:00') });
    expect(garbage.statusCode).toBe(400);
    const unknownField = await book(anna.token, {
      fromDateTime: local(3, '10:00'),
      untilDateTime: local(3, '11:00'),
      price: 3,
    });
    expect(unknownField.statusCode).toBe(400);
    const notBookable = await insertResource(t, { space: spaceId, name: 'Door', canBeBooked: 0 });
    const door = await book(anna.token, {
      resource: notBookable,
      fromDateTime: local(3, '10:00'),
      untilDateTime: local(3, '11:00'),
    });
    expect(door.statusCode).toBe(422);
    expect(door.json().data).toEqual({ rule: 'notBookable', notBookable: true });
    expect(await count()).toBe(before);
  });

  it('answers 409 to an overlapping booking but takes an adjacent one', async () => {
    const first = await book(anna.token, {
      fromDateTime: local(4, '10:00'),
      untilDateTime: local(4, '11:00'),
    });
    expect(first.statusCode).toBe(201);
    const overlap = await book(bert.token, {
      fromDateTime: local(4, '10:30'),
      untilDateTime: local(4, '11:30'),
    });
    expect(overlap.statusCode).toBe(409);
    // The refusal names the rule and the booking in the way, for a client to show.
    expect(overlap.json().data).toEqual({
      rule: 'overlappingBooking',
      overlappingBooking: first.json().id,
      overlappingMember: first.json().member,
      overlappingFrom: first.json().fromDateTime,
      overlappingUntil: first.json().untilDateTime,
    });
    const adjacent = await book(bert.token, {
      fromDateTime: local(4, '11:00'),
      untilDateTime: local(4, '11:30'),
    });
    expect(adjacent.statusCode).toBe(201);
  });

  it('accepts exactly one of 20 concurrent overlapping bookings', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        book(i % 2 ? anna.token : bert.token, {
          fromDateTime: local(5, i % 3 ? '14:00' : '14:30'),
          untilDateTime: local(5, '15:30'),
        }),
      ),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c !== 201).every((c) => c === 409)).toBe(true);
    const stored = await t.call(owner, {
      method: 'GET',
      url: `/api/v1/bookings?resource=${resource}&from=${encodeURIComponent(local(5, '00:00'))}&until=${encodeURIComponent(local(6, '00:00'))}`,
    });
    expect(stored.json()).toHaveLength(1);
  });

  it('keeps bookings out of holidays and, when configured, inside opening hours', async () => {
    const holiday = await t.call(owner, {
      method: 'POST',
      url: `/api/v1/spaces/${spaceId}/holidays`,
      payload: {
        title: 'Closed',
        fromDateTime: `${dayFromNow(6)}T12:00`,
        untilDateTime: `${dayFromNow(7)}T00:00`,
      },
    });
    expect(holiday.statusCode).toBe(201);
    const during = await book(anna.token, {
      fromDateTime: local(6, '11:00'),
      untilDateTime: local(6, '12:30'),
    });
    expect(during.statusCode).toBe(422);
    expect(during.json().data).toEqual({
      rule: 'holiday',
      holiday: true,
      holidayTitle: 'Closed',
      holidayFrom: `${dayFromNow(6)}T12:00`,
      holidayUntil: `${dayFromNow(7)}T00:00`,
    });
    const before = await book(anna.token, {
      fromDateTime: local(6, '11:00'),
      untilDateTime: local(6, '12:00'),
    });
    expect(before.statusCode).toBe(201);

    const weekday = ((new Date(`${dayFromNow(8)}T12:00:00Z`).getUTCDay() + 6) % 7) + 1;
    await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/spaces/${spaceId}/opening-hours`,
      payload: [{ dayOfWeek: weekday, fromTime: '09:00', untilTime: '12:00' }],
    });
    const inside = await book(anna.token, {
      fromDateTime: local(8, '09:00'),
      untilDateTime: local(8, '12:00'),
    });
    expect(inside.statusCode).toBe(201);
    const outside = await book(bert.token, {
      fromDateTime: local(8, '12:00'),
      untilDateTime: local(8, '13:00'),
    });
    expect(outside.statusCode).toBe(422);
    expect(outside.json().data).toEqual({ rule: 'outsideOpeningHours', outsideOpeningHours: true });
    await t.call(owner, { method: 'PUT', url: `/api/v1/spaces/${spaceId}/opening-hours`, payload: [] });
  });

  it('enforces the per-member daily limit for members, not for admins', async () => {
    const space = (await t.call(owner, { method: 'GET', url: `/api/v1/spaces/${spaceId}` })).json();
    await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/spaces/${spaceId}`,
      payload: { bookingMaxMinutesPerMemberDay: 90, lockVersion: space.lockVersion },
    });
    expect(
      (await book(anna.token, { fromDateTime: local(9, '08:00'), untilDateTime: local(9, '09:00') }))
        .statusCode,
    ).toBe(201);
    const over = await book(anna.token, {
      fromDateTime: local(9, '10:00'),
      untilDateTime: local(9, '11:00'),
    });
    expect(over.statusCode).toBe(422);
    expect(over.json().data).toMatchObject({ rule: 'dailyLimit', dailyLimit: 90, bookedMinutes: 60 });
    const fits = await book(anna.token, {
      fromDateTime: local(9, '10:00'),
      untilDateTime: local(9, '10:30'),
    });
    expect(fits.statusCode).toBe(201);
    const admin = await book(owner, {
      member: anna.memberId,
      fromDateTime: local(9, '12:00'),
      untilDateTime: local(9, '13:00'),
    });
    expect(admin.statusCode).toBe(201);
    // An admin booking for the member may ask to be held to the member's rules.
    const before = await count();
    const held = await book(owner, {
      member: anna.memberId,
      fromDateTime: local(9, '14:00'),
      untilDateTime: local(9, '15:00'),
      applyMemberRules: true,
    });
    expect(held.statusCode).toBe(422);
    expect(held.json().data).toMatchObject({ rule: 'dailyLimit', dailyLimit: 90 });
    const farAhead = {
      member: anna.memberId,
      fromDateTime: local(20, '10:00'),
      untilDateTime: local(20, '11:00'),
    };
    const tooFar = await book(owner, { ...farAhead, applyMemberRules: true });
    expect(tooFar.statusCode).toBe(422);
    expect(tooFar.json().data).toMatchObject({ rule: 'outsideBookingWindow', bookingWindowMaxDays: 14 });
    expect(await count()).toBe(before);
    expect((await book(owner, farAhead)).statusCode).toBe(201);
  });

  it('lets members cancel their own future booking only; admins may move bookings', async () => {
    const b = (
      await book(anna.token, { fromDateTime: local(10, '10:00'), untilDateTime: local(10, '11:00') })
    ).json();
    const move = await t.call(anna.token, {
      method: 'PUT',
      url: `/api/v1/bookings/${b.id}`,
      payload: { ...b, fromDateTime: local(10, '09:00') },
    });
    expect(move.statusCode).toBe(403);
    const byOther = await t.call(bert.token, {
      method: 'PUT',
      url: `/api/v1/bookings/${b.id}`,
      payload: { state: 'cancelled', lockVersion: 1 },
    });
    expect(byOther.statusCode).toBe(404);
    const cancel = await t.call(anna.token, {
      method: 'PUT',
      url: `/api/v1/bookings/${b.id}`,
      payload: { ...b, state: 'cancelled' },
    });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json()).toMatchObject({ state: 'cancelled', lockVersion: 2 });
    // The slot is free again.
    const again = await book(bert.token, {
      fromDateTime: local(10, '10:00'),
      untilDateTime: local(10, '11:00'),
    });
    expect(again.statusCode).toBe(201);

    const moved = await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/bookings/${again.json().id}`,
      payload: { fromDateTime: local(10, '11:00'), untilDateTime: local(10, '12:00'), lockVersion: 1 },
    });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().fromDateTime).toBe(local(10, '11:00'));
    const stale = await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/bookings/${again.json().id}`,
      payload: { notes: 'x', lockVersion: 1 },
    });
    expect(stale.statusCode).toBe(409);
  });

  it('refuses to cancel a booking that has started or is within the lock-in time', async () => {
    const stamp = new Date().toISOString();
    const started = await t.hub.ctx.db
      .insertInto('bookings')
      .values({
        account: t.owner.accountId,
        resource,
        member: anna.memberId,
        fromDateTime: new Date(Date.now() - 3600_000).toISOString(),
        untilDateTime: new Date(Date.now() + 3600_000).toISOString(),
        createdAt: stamp,
        updatedAt: stamp,
        updatedBy: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const res = await t.call(anna.token, {
      method: 'PUT',
      url: `/api/v1/bookings/${started.id}`,
      payload: { state: 'cancelled', lockVersion: 1 },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().data).toEqual({ rule: 'bookingStarted', bookingStarted: true });

    const space = (await t.call(owner, { method: 'GET', url: `/api/v1/spaces/${spaceId}` })).json();
    await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/spaces/${spaceId}`,
      payload: { bookingLockInHours: 72, lockVersion: space.lockVersion },
    });
    // 30 minutes: Anna already has 60 of the 90 daily minutes on that day.
    const created = await book(anna.token, {
      fromDateTime: local(2, '16:00'),
      untilDateTime: local(2, '16:30'),
    });
    expect(created.statusCode).toBe(201);
    const soon = created.json();
    const locked = await t.call(anna.token, {
      method: 'PUT',
      url: `/api/v1/bookings/${soon.id}`,
      payload: { state: 'cancelled', lockVersion: 1 },
    });
    expect(locked.statusCode).toBe(422);
    expect(locked.json().data).toEqual({ rule: 'lockedIn', lockedIn: true });
  });
});

describe('bookings module', () => {
  it('uses Vienna wall times for the test helper', () => {
    expect(zonedInstant('2026-07-01T10:00', VIENNA).toISOString()).toBe('2026-07-01T08:00:00.000Z');
  });
});
