import type * as Ical from 'ical-generator';
import type { Db } from '../db/crud.js';
import { calendarBookings } from './bookings.repository.js';
import { holidaysOfSpace, type SpaceRow } from './spaces.repository.js';
import { offsetMinutes, wallTime, zonedInstant } from '../kernel/zoned-time.js';
import { onFirstUse } from '../kernel/on-first-use.js';

const icalLibrary = onFirstUse<typeof Ical>('ical-generator');

/*
 * The space's calendar feed (iCalendar, RFC 5545): confirmed bookings and holidays, with times
 * written as wall times of the space's zone (TZID) and a VTIMEZONE built from Intl, so a
 * calendar app shows 09:00 in Vienna as 09:00 whatever the viewer's zone.
 */

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');
const compact = (at: Date, zone: string) => {
  const w = wallTime(at, zone);
  return `${pad(w.year, 4)}${pad(w.month)}${pad(w.day)}T${pad(w.hour)}${pad(w.minute)}${pad(w.second)}`;
};
const utcOffset = (minutes: number) =>
  `${minutes < 0 ? '-' : '+'}${pad(Math.trunc(minutes / 60))}${pad(minutes % 60)}`;

/**
 * A date as ical-generator's "dayjs-like" value: it asks `tz(zone)` then `format(...)`, which
 * lets us give it the wall time in the space's zone without a date library.
 */
function zoned(at: Date, zone: string) {
  return {
    isValid: () => true,
    tz: (z: string) => zoned(at, z),
    // Asked for when the event's zone is UTC: the wall time in UTC, to which "Z" is appended.
    utc: () => zoned(at, 'UTC'),
    format: (f: string) => {
      const c = compact(at, zone);
      return f === 'YYYYMMDD' ? c.slice(0, 8) : f === 'HHmmss' ? c.slice(9) : c;
    },
    toDate: () => at,
    toJSON: () => at.toISOString(),
  };
}

/** The zone's offset changes between two instants (found by daily steps, then to the minute). */
function transitions(zone: string, from: Date, until: Date): { at: Date; before: number; after: number }[] {
  const found: { at: Date; before: number; after: number }[] = [];
  const day = 86_400_000;
  for (let t = from.getTime(); t < until.getTime(); t += day) {
    const before = offsetMinutes(new Date(t), zone);
    const after = offsetMinutes(new Date(t + day), zone);
    if (before === after) continue;
    let lo = t;
    let hi = t + day;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (offsetMinutes(new Date(mid), zone) === before) lo = mid;
      else hi = mid;
    }
    found.push({ at: new Date(hi), before, after });
  }
  return found;
}

/** A VTIMEZONE with the zone's real transitions over the years the feed covers. */
export function vtimezone(zone: string, from: Date, until: Date): string {
  const start = new Date(Date.UTC(from.getUTCFullYear() - 1, 0, 1));
  const end = new Date(Date.UTC(until.getUTCFullYear() + 2, 0, 1));
  const initial = offsetMinutes(start, zone);
  const lines = [
    'BEGIN:VTIMEZONE',
    `TZID:${zone}`,
    'BEGIN:STANDARD',
    `DTSTART:${compact(start, 'UTC')}`,
    `TZOFFSETFROM:${utcOffset(initial)}`,
    `TZOFFSETTO:${utcOffset(initial)}`,
    'END:STANDARD',
  ];
  for (const t of transitions(zone, start, end)) {
    const kind = t.after > t.before ? 'DAYLIGHT' : 'STANDARD';
    // DTSTART is the local time of the change as read before it (RFC 5545 3.6.5).
    const local = compact(new Date(t.at.getTime() + t.before * 60_000), 'UTC');
    lines.push(
      `BEGIN:${kind}`,
      `DTSTART:${local}`,
      `TZOFFSETFROM:${utcOffset(t.before)}`,
      `TZOFFSETTO:${utcOffset(t.after)}`,
      `END:${kind}`,
    );
  }
  lines.push('END:VTIMEZONE');
  return lines.join('\r\n');
}

/** Builds the feed of a space: bookings from 30 days ago on, and holidays that have not ended long ago. */
export async function calendarFeed(db: Db, space: SpaceRow, at: Date, host: string): Promise<string> {
  const zone = space.timezone;
  const since = new Date(at.getTime() - 30 * 86_400_000);
  const bookings = await calendarBookings(db, space.id, since.toISOString());
  const holidays = await holidaysOfSpace(db, space.id);

  const { default: ical, ICalEventStatus } = icalLibrary();
  const cal = ical({ name: space.name, prodId: { company: 'makerspace-hub', product: 'calendar' } });
  const last = [
    at,
    ...bookings.map((b) => new Date(b.untilDateTime)),
    ...holidays.map((h) => zonedInstant(h.untilDateTime, zone)),
  ].reduce((a, b) => (b > a ? b : a));
  // No calendar-wide zone name: ical-generator would then write DTSTAMP as a local time too.
  cal.timezone({ name: null, generator: (tz) => vtimezone(tz, since, last) });
  cal.x('X-WR-TIMEZONE', zone);
  for (const b of bookings) {
    cal.createEvent({
      id: `booking-${b.id}@${host}`,
      start: zoned(new Date(b.fromDateTime), zone) as any,
      end: zoned(new Date(b.untilDateTime), zone) as any,
      timezone: zone,
      summary: `${b.resourceName}: ${`${b.firstName} ${b.lastName}`.trim()}`,
      status: ICalEventStatus.CONFIRMED,
      stamp: new Date(b.updatedAt),
    });
  }
  for (const h of holidays) {
    cal.createEvent({
      id: `holiday-${h.id}@${host}`,
      start: zoned(zonedInstant(h.fromDateTime, zone), zone) as any,
      end: zoned(zonedInstant(h.untilDateTime, zone), zone) as any,
      timezone: zone,
      summary: h.title ? `Closed: ${h.title}` : 'Closed (holiday)',
      stamp: new Date(h.updatedAt),
    });
  }
  return cal.toString();
}
