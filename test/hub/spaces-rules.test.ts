import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreRules } from '../../hub/src/access/core.rules.js';
import { AccessPolicy } from '../../hub/src/access/policy.js';
import { allRules } from '../../hub/src/hub.js';
import {
  bookingOutcome,
  holidayOutcome,
  openingHoursOutcome,
  requiresBookingOutcome,
  spaceRules,
  trainingOutcome,
} from '../../hub/src/spaces/access.rules.js';
import { localDateTime, offsetMinutes, zonedInstant } from '../../hub/src/kernel/zoned-time.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { insertResource, plainMember } from './spaces-support.js';

const VIENNA = 'Europe/Vienna';
/** Mon-Fri 09:00-18:00. */
const weekdays = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, fromTime: '09:00', untilTime: '18:00' }));
const at = (iso: string) => new Date(iso);

describe('zoned time (Intl only)', () => {
  it('knows Vienna winter and summer offsets and the DST switches of 2026', () => {
    expect(offsetMinutes(at('2026-03-29T00:59:00Z'), VIENNA)).toBe(60);
    expect(offsetMinutes(at('2026-03-29T01:00:00Z'), VIENNA)).toBe(120);
    expect(offsetMinutes(at('2026-10-25T00:59:00Z'), VIENNA)).toBe(120);
    expect(offsetMinutes(at('2026-10-25T01:00:00Z'), VIENNA)).toBe(60);
    expect(localDateTime(at('2026-03-29T01:00:00Z'), VIENNA)).toBe('2026-03-29T03:00');
    expect(zonedInstant('2026-03-30T09:00', VIENNA).toISOString()).toBe('2026-03-30T07:00:00.000Z');
    expect(zonedInstant('2026-10-26T09:00', VIENNA).toISOString()).toBe('2026-10-26T08:00:00.000Z');
  });
});

describe('openingHours rule (Europe/Vienna, Mon-Fri 09:00-18:00)', () => {
  it('denies on a Saturday', () => {
    // Saturday 2026-03-28 12:00 local.
    // It says when the space opens: Monday 09:00, after the change to summer time.
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-03-28T11:00:00Z'))).toEqual({
      deny: 'openingHours',
      until: new Date('2026-03-30T07:00:00Z'),
    });
  });

  it('allows on a weekday at 10:00 with maxDuration until 18:00', () => {
    // Friday 2026-03-27 10:00 local (UTC+1).
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-03-27T09:00:00Z'))).toEqual({
      maxDuration: 8 * 3600,
    });
  });

  it('uses summer time after 2026-03-29: 07:30Z is 09:30 (open), 06:30Z is 08:30 (closed)', () => {
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-03-30T07:30:00Z'))).toEqual({
      maxDuration: 8.5 * 3600,
    });
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-03-30T06:30:00Z'))).toEqual({
      deny: 'openingHours',
      until: new Date('2026-03-30T07:00:00Z'),
    });
    // The Friday before, still UTC+1: 07:30Z is 08:30 local, closed.
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-03-27T07:30:00Z'))).toEqual({
      deny: 'openingHours',
      until: new Date('2026-03-27T08:00:00Z'),
    });
  });

  it('uses winter time after 2026-10-25: 07:30Z is 08:30 (closed), 17:30Z is 18:30 (closed)', () => {
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-10-26T07:30:00Z'))).toEqual({
      deny: 'openingHours',
      until: new Date('2026-10-26T08:00:00Z'),
    });
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-10-26T16:30:00Z'))).toEqual({ maxDuration: 1800 });
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-10-26T17:30:00Z'))).toEqual({
      deny: 'openingHours',
      until: new Date('2026-10-27T08:00:00Z'),
    });
    // The Friday before, still UTC+2: 07:30Z is 09:30 local, open.
    expect(openingHoursOutcome(VIENNA, weekdays, at('2026-10-23T07:30:00Z'))).toEqual({
      maxDuration: 8.5 * 3600,
    });
  });

  it('counts real seconds across a DST night and joins touching ranges', () => {
    const sunday = [{ dayOfWeek: 7, fromTime: '00:00', untilTime: '24:00' }];
    // Sunday 2026-03-29 has 23 hours in Vienna.
    expect(openingHoursOutcome(VIENNA, sunday, at('2026-03-28T23:00:00Z'))).toEqual({
      maxDuration: 23 * 3600,
    });
    // Sunday 2026-10-25 has 25 hours.
    expect(openingHoursOutcome(VIENNA, sunday, at('2026-10-24T22:00:00Z'))).toEqual({
      maxDuration: 25 * 3600,
    });
    const split = [
      { dayOfWeek: 1, fromTime: '09:00', untilTime: '12:00' },
      { dayOfWeek: 1, fromTime: '12:00', untilTime: '14:00' },
    ];
    expect(openingHoursOutcome(VIENNA, split, at('2026-03-30T08:00:00Z'))).toEqual({ maxDuration: 4 * 3600 });
  });

  it('treats a space without opening hours as always open', () => {
    expect(openingHoursOutcome(VIENNA, [], at('2026-03-28T11:00:00Z'))).toBeUndefined();
  });
});

describe('holiday rule', () => {
  const easterMonday = [{ fromDateTime: '2026-04-06T00:00', untilDateTime: '2026-04-07T00:00' }];

  it('denies during a holiday in space-local time', () => {
    const over = new Date('2026-04-06T22:00:00Z'); // midnight in Vienna
    expect(holidayOutcome(VIENNA, easterMonday, at('2026-04-06T08:00:00Z'))).toEqual({
      deny: 'holiday',
      until: over,
    });
    // 23:30Z on the 5th is already 01:30 on the 6th in Vienna (UTC+2).
    expect(holidayOutcome(VIENNA, easterMonday, at('2026-04-05T23:30:00Z'))).toEqual({
      deny: 'holiday',
      until: over,
    });
    // 22:30Z on the 6th is 00:30 on the 7th: over.
    expect(holidayOutcome(VIENNA, easterMonday, at('2026-04-06T22:30:00Z'))).toBeUndefined();
  });

  it('limits a session to the start of the next holiday', () => {
    // Sunday 2026-04-05 21:00 local = 19:00Z; the holiday starts 3 hours later.
    expect(holidayOutcome(VIENNA, easterMonday, at('2026-04-05T19:00:00Z'))).toEqual({
      maxDuration: 3 * 3600,
    });
  });

  it('holds across the spring DST change (holiday given in local time)', () => {
    const dstSunday = [{ fromDateTime: '2026-03-29T02:00', untilDateTime: '2026-03-29T04:00' }];
    // 01:30Z is 03:30 summer time: inside.
    expect(holidayOutcome(VIENNA, dstSunday, at('2026-03-29T01:30:00Z'))).toEqual({
      deny: 'holiday',
      until: new Date('2026-03-29T02:00:00Z'),
    });
    // 02:00Z is 04:00: over.
    expect(holidayOutcome(VIENNA, dstSunday, at('2026-03-29T02:00:00Z'))).toBeUndefined();
  });
});

describe('booking and requiresBooking rules', () => {
  const me = 7;
  const other = 8;
  const now = at('2026-03-30T08:00:00.000Z'); // Monday 10:00 in Vienna

  it('denies while someone else has a confirmed booking, and cuts the session at the next foreign booking', () => {
    const covering = [
      { member: other, fromDateTime: '2026-03-30T07:30:00.000Z', untilDateTime: '2026-03-30T09:00:00.000Z' },
    ];
    expect(bookingOutcome(covering, me, now)).toEqual({
      deny: 'booking',
      until: new Date('2026-03-30T09:00:00.000Z'),
    });
    expect(bookingOutcome(covering, other, now)).toBeUndefined();
    const later = [
      { member: other, fromDateTime: '2026-03-30T10:00:00.000Z', untilDateTime: '2026-03-30T11:00:00.000Z' },
      { member: other, fromDateTime: '2026-03-30T09:00:00.000Z', untilDateTime: '2026-03-30T09:30:00.000Z' },
      { member: me, fromDateTime: '2026-03-30T08:30:00.000Z', untilDateTime: '2026-03-30T09:00:00.000Z' },
    ];
    expect(bookingOutcome(later, me, now)).toEqual({ maxDuration: 3600 });
    expect(bookingOutcome([], me, now)).toBeUndefined();
  });

  it('requires an own booking now on mustBeBooked resources and runs to its (chained) end', () => {
    const resource = { mustBeBooked: 1 };
    expect(requiresBookingOutcome(resource, [], me, now)).toEqual({ deny: 'requiresBooking' });
    const own = [
      { member: me, fromDateTime: '2026-03-30T07:30:00.000Z', untilDateTime: '2026-03-30T08:30:00.000Z' },
      { member: me, fromDateTime: '2026-03-30T08:30:00.000Z', untilDateTime: '2026-03-30T09:00:00.000Z' },
    ];
    expect(requiresBookingOutcome(resource, own, me, now)).toEqual({ maxDuration: 3600 });
    expect(requiresBookingOutcome(resource, own, other, now)).toEqual({ deny: 'requiresBooking' });
    expect(requiresBookingOutcome({ mustBeBooked: 0 }, [], me, now)).toBeUndefined();
  });
});

describe('training rule (noPermission)', () => {
  it('needs a training valid today when the resource requires one', () => {
    const resource = { requiresTraining: 1 };
    expect(trainingOutcome(resource, [], '2026-03-30')).toEqual({ deny: 'noPermission' });
    expect(
      trainingOutcome(resource, [{ fromDate: '2026-01-01', untilDate: '2026-03-30' }], '2026-03-30'),
    ).toBeUndefined();
    expect(
      trainingOutcome(resource, [{ fromDate: '2026-01-01', untilDate: '2026-03-29' }], '2026-03-30'),
    ).toEqual({
      deny: 'noPermission',
      message: 'Your training for this resource expired on 2026-03-29',
      details: { trainingExpired: '2026-03-29' },
    });
    // Of several ended trainings, the verdict names the latest end.
    expect(
      trainingOutcome(
        resource,
        [
          { fromDate: null, untilDate: '2025-03-29' },
          { fromDate: null, untilDate: '2026-02-01' },
        ],
        '2026-03-30',
      ),
    ).toMatchObject({ details: { trainingExpired: '2026-02-01' } });
    expect(trainingOutcome(resource, [{ fromDate: '2026-04-01', untilDate: null }], '2026-03-30')).toEqual({
      deny: 'noPermission',
      message: 'Your training for this resource is valid from 2026-04-01',
      details: { trainingFrom: '2026-04-01' },
    });
    expect(trainingOutcome(resource, [{ fromDate: null, untilDate: null }], '2026-03-30')).toBeUndefined();
    expect(trainingOutcome({ requiresTraining: 0 }, [], '2026-03-30')).toBeUndefined();
  });
});

it('allRules() contains the space rules', () => {
  const names = new AccessPolicy(allRules()).ruleNames;
  for (const n of ['training', 'openingHours', 'holiday', 'booking', 'requiresBooking'])
    expect(names).toContain(n);
});

describeEachDialect('space rules through the policy and the database', (dialect) => {
  let t: TestHub;
  let policy: AccessPolicy;
  let spaceId: number;
  beforeAll(async () => {
    t = await startTestHub(dialect);
    // Only core and space rules, so other areas' rules (packages) do not decide these cases.
    policy = new AccessPolicy([...coreRules(), ...spaceRules()]);
    const owner = t.owner.token;
    const space = await t.call(owner, {
      method: 'POST',
      url: '/api/v1/spaces',
      payload: { name: 'Vienna lab', timezone: VIENNA },
    });
    spaceId = space.json().id;
    await t.call(owner, { method: 'PUT', url: `/api/v1/spaces/${spaceId}/opening-hours`, payload: weekdays });
    await t.call(owner, {
      method: 'POST',
      url: `/api/v1/spaces/${spaceId}/holidays`,
      payload: {
        title: 'Easter Monday',
        fromDateTime: '2026-04-06T00:00',
        untilDateTime: '2026-04-07T00:00',
      },
    });
  });
  afterAll(async () => t?.close());

  const rows = async (resourceId: number, memberId: number) => ({
    resource: await t.hub.ctx.db
      .selectFrom('resources')
      .selectAll()
      .where('id', '=', resourceId)
      .executeTakeFirstOrThrow(),
    member: await t.hub.ctx.db
      .selectFrom('members')
      .selectAll()
      .where('id', '=', memberId)
      .executeTakeFirstOrThrow(),
  });

  it('denies by opening hours, holiday, foreign booking and missing training; admins pass', async () => {
    const db = t.hub.ctx.db;
    const resourceId = await insertResource(t, { space: spaceId, name: 'Laser', requiresTraining: 1 });
    const anna = await plainMember(t, 'Anna', spaceId);
    const bert = await plainMember(t, 'Bert', spaceId);
    const { resource, member } = await rows(resourceId, anna.memberId);
    const admin = (await rows(resourceId, t.owner.memberId)).member;
    const monday10 = at('2026-03-30T08:00:00Z');

    expect(await policy.decide({ db, resource, member, at: monday10 })).toMatchObject({
      allowed: false,
      reason: 'noPermission',
    });
    // A training whose course covers the laser.
    const course = await t.call(t.owner.token, {
      method: 'POST',
      url: '/api/v1/training-courses',
      payload: { title: 'Laser basics', resources: [resourceId] },
    });
    await t.call(t.owner.token, {
      method: 'POST',
      url: `/api/v1/members/${anna.memberId}/trainings`,
      payload: { trainingCourse: course.json().id, date: '2026-01-10', untilDate: '2026-12-31' },
    });
    expect(await policy.decide({ db, resource, member, at: monday10 })).toEqual({
      allowed: true,
      maxDuration: 8 * 3600,
    });
    expect(await policy.decide({ db, resource, member, at: at('2026-03-28T11:00:00Z') })).toMatchObject({
      reason: 'openingHours',
    });
    expect(await policy.decide({ db, resource, member, at: at('2026-04-06T08:00:00Z') })).toMatchObject({
      reason: 'holiday',
    });

    // Bert's booking 11:00-12:00 local: Anna's session ends at 11:00; during it Anna is denied.
    const stamp = new Date().toISOString();
    await db
      .insertInto('bookings')
      .values({
        account: t.owner.accountId,
        resource: resourceId,
        member: bert.memberId,
        fromDateTime: '2026-03-30T09:00:00.000Z',
        untilDateTime: '2026-03-30T10:00:00.000Z',
        createdAt: stamp,
        updatedAt: stamp,
        updatedBy: null,
      })
      .execute();
    expect(await policy.decide({ db, resource, member, at: monday10 })).toEqual({
      allowed: true,
      maxDuration: 3600,
    });
    expect(await policy.decide({ db, resource, member, at: at('2026-03-30T09:15:00Z') })).toMatchObject({
      reason: 'booking',
    });

    // Admins pass training, opening hours, holidays and bookings.
    expect(await policy.decide({ db, resource, member: admin, at: at('2026-04-06T08:00:00Z') })).toEqual({
      allowed: true,
      maxDuration: null,
    });

    // mustBeBooked without an own booking: requiresBooking.
    await db.updateTable('resources').set({ mustBeBooked: 1 }).where('id', '=', resourceId).execute();
    const strict = (await rows(resourceId, anna.memberId)).resource;
    expect(await policy.decide({ db, resource: strict, member, at: monday10 })).toMatchObject({
      reason: 'requiresBooking',
    });
  });
});
