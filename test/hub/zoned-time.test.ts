import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { localDate, offsetMinutes, wallTime, zonedInstant } from '../../hub/src/kernel/zoned-time.js';

/**
 * DST changes of 2026 in several zones. A repeated wall time (fall-back) is its later
 * occurrence and a skipped one (spring-forward) moves forward by the gap, in every zone alike
 * (Temporal's `later`). Expected instants are written out by hand from the zones' rules.
 */
const cases: [zone: string, wall: string, expected: string, what: string][] = [
  ['America/New_York', '2026-11-01T01:30', '2026-11-01T06:30:00.000Z', 'repeated: EST, the later one'],
  ['Europe/Berlin', '2026-10-25T02:30', '2026-10-25T01:30:00.000Z', 'repeated: CET, the later one'],
  ['Europe/London', '2026-10-25T01:30', '2026-10-25T01:30:00.000Z', 'repeated: GMT, the later one'],
  ['Australia/Sydney', '2026-04-05T02:30', '2026-04-04T16:30:00.000Z', 'repeated: AEST, the later one'],
  ['Australia/Lord_Howe', '2026-04-05T01:45', '2026-04-04T15:15:00.000Z', 'repeated: half-hour change'],
  ['America/Santiago', '2026-04-04T23:30', '2026-04-05T03:30:00.000Z', 'repeated: at midnight'],
  ['America/New_York', '2026-03-08T02:30', '2026-03-08T07:30:00.000Z', 'skipped: forward by the gap'],
  ['Europe/Berlin', '2026-03-29T02:30', '2026-03-29T01:30:00.000Z', 'skipped: forward by the gap'],
  ['Europe/London', '2026-03-29T01:30', '2026-03-29T01:30:00.000Z', 'skipped: forward by the gap'],
  ['Australia/Sydney', '2026-10-04T02:30', '2026-10-03T16:30:00.000Z', 'skipped: forward by the gap'],
  ['Asia/Tokyo', '2026-03-08T02:30', '2026-03-07T17:30:00.000Z', 'no DST'],
  ['Europe/Berlin', '2026-10-25T01:30', '2026-10-24T23:30:00.000Z', 'just before the repeated hour'],
  ['Europe/Berlin', '2026-10-25T03:00', '2026-10-25T02:00:00.000Z', 'just after the repeated hour'],
  ['Europe/Vienna', '2026-03-28T24:00', '2026-03-28T23:00:00.000Z', '24:00 is the end of the day'],
];

describe('wall times across DST changes', () => {
  for (const [zone, wall, expected, what] of cases) {
    it(`${wall} in ${zone} (${what})`, () => {
      expect(zonedInstant(wall, zone).toISOString()).toBe(expected);
    });
  }

  it('reads the wall clock and the offset on both sides of a change', () => {
    // Berlin, 2026-10-25: 01:00Z is 03:00 CEST -> clocks go back to 02:00 CET.
    expect(wallTime(new Date('2026-10-25T00:59:00Z'), 'Europe/Berlin')).toMatchObject({
      hour: 2,
      minute: 59,
    });
    expect(wallTime(new Date('2026-10-25T01:00:00Z'), 'Europe/Berlin')).toMatchObject({ hour: 2, minute: 0 });
    expect(offsetMinutes(new Date('2026-10-25T00:59:00Z'), 'Europe/Berlin')).toBe(120);
    expect(offsetMinutes(new Date('2026-10-25T01:00:00Z'), 'Europe/Berlin')).toBe(60);
    expect(offsetMinutes(new Date('2026-04-04T15:30:00Z'), 'Australia/Lord_Howe')).toBe(630);
    expect(wallTime(new Date('2026-03-08T12:00:00Z'), 'America/New_York').dayOfWeek).toBe(7);
    expect(localDate(new Date('2026-04-04T13:30:00Z'), 'Pacific/Kiritimati')).toBe('2026-04-05');
  });

  it('reads the wall clock the same minute by minute through DST changes, forwards and back', () => {
    // A clock that walks across both changes of the year, then jumps back: every reading is the
    // one Temporal gives for that instant.
    const zones = ['Europe/Vienna', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'UTC'];
    const instants: number[] = [];
    for (const around of [
      '2026-03-08T00:00:00Z',
      '2026-03-29T00:00:00Z',
      '2026-10-04T00:00:00Z',
      '2026-11-01T00:00:00Z',
    ])
      for (let m = 0; m < 36 * 60; m += 19) instants.push(Date.parse(around) + m * 60_000 + 13_000);
    instants.push(Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-07-01T12:00:00Z'));
    for (const zone of zones)
      for (const t of instants) {
        const z = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(zone);
        expect(wallTime(new Date(t), zone), `${new Date(t).toISOString()} in ${zone}`).toEqual({
          year: z.year,
          month: z.month,
          day: z.day,
          hour: z.hour,
          minute: z.minute,
          second: z.second,
          dayOfWeek: z.dayOfWeek,
        });
      }
  });
});
