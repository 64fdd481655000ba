import { describe, expect, it } from 'vitest';
import { closingCheckOutAt } from '../../hub/src/presence/check-ins.js';
import { windowAt } from '../../hub/src/presence/door-windows.js';

// The pure rules of presence: when a stay ends by itself, and a door's unlock window.
const weekdays = (fromTime: string, untilTime: string) =>
  [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, fromTime, untilTime }));
const at = (iso: string) => new Date(iso);
// Friday 27 November 2026 in Vienna (UTC+1).
const zone = 'Europe/Vienna';

describe('closing-time check-out', () => {
  it('ends a stay at the closing of the range it began in; ranges that touch count as one', () => {
    const hours = [...weekdays('09:00', '12:00'), ...weekdays('12:00', '18:00')];
    expect(closingCheckOutAt(hours, at('2026-11-27T09:30:00Z'), zone).toISOString()).toBe(
      '2026-11-27T17:00:00.000Z',
    );
  });
  it('a stay begun while closed ends at the next range’s closing; no hours: local midnight', () => {
    const hours = weekdays('09:00', '18:00');
    // Friday 20:00 local: closed; next opening Monday 09:00, closing Monday 18:00.
    expect(closingCheckOutAt(hours, at('2026-11-27T19:00:00Z'), zone).toISOString()).toBe(
      '2026-11-30T17:00:00.000Z',
    );
    expect(closingCheckOutAt([], at('2026-11-27T19:00:00Z'), zone).toISOString()).toBe(
      '2026-11-27T23:00:00.000Z',
    );
  });
});

describe('door unlock windows', () => {
  const base = {
    zone,
    hours: weekdays('09:00', '18:00'),
    holidays: [],
    enteredToday: false,
    lockedUntil: null,
  };
  it('openingHours: open until closing while open; none while closed or without hours', () => {
    expect(windowAt({ ...base, mode: 'openingHours', at: at('2026-11-27T10:00:00Z') })).toEqual({
      unlockMode: 'openingHours',
      until: at('2026-11-27T17:00:00Z'),
    });
    expect(windowAt({ ...base, mode: 'openingHours', at: at('2026-11-28T10:00:00Z') })).toBeNull();
    expect(windowAt({ ...base, hours: [], mode: 'openingHours', at: at('2026-11-27T10:00:00Z') })).toBeNull();
    expect(windowAt({ ...base, mode: 'normal', at: at('2026-11-27T10:00:00Z') })).toBeNull();
  });
  it('firstIn: only after the first entry of the day; until midnight without hours', () => {
    expect(windowAt({ ...base, mode: 'firstIn', at: at('2026-11-27T10:00:00Z') })).toBeNull();
    expect(
      windowAt({ ...base, mode: 'firstIn', enteredToday: true, at: at('2026-11-27T10:00:00Z') })?.until,
    ).toEqual(at('2026-11-27T17:00:00Z'));
    expect(
      windowAt({ ...base, hours: [], mode: 'firstIn', enteredToday: true, at: at('2026-11-27T10:00:00Z') })
        ?.until,
    ).toEqual(at('2026-11-27T23:00:00Z'));
  });
  it('a holiday closes it or cuts it short; lock now holds until its time', () => {
    const holidays = [{ fromDateTime: '2026-11-27T14:00', untilDateTime: '2026-11-28T00:00' }];
    expect(
      windowAt({ ...base, holidays, mode: 'openingHours', at: at('2026-11-27T10:00:00Z') })?.until,
    ).toEqual(at('2026-11-27T13:00:00Z'));
    expect(windowAt({ ...base, holidays, mode: 'openingHours', at: at('2026-11-27T14:00:00Z') })).toBeNull();
    const lockedUntil = at('2026-11-27T17:00:00Z');
    expect(
      windowAt({ ...base, lockedUntil, mode: 'openingHours', at: at('2026-11-27T10:00:00Z') }),
    ).toBeNull();
    expect(
      windowAt({ ...base, lockedUntil, mode: 'openingHours', at: at('2026-11-30T10:00:00Z') }),
    ).not.toBeNull();
  });
});
