import { onFirstUse } from './on-first-use.js';

/**
 * The polyfill, loaded when the first wall time is asked for: at its import it makes an
 * `Intl.DateTimeFormat`, which maps several MiB of ICU data that a hub with nothing to time does
 * not need (docs/PERFORMANCE.md).
 */
const polyfill = onFirstUse<typeof import('temporal-polyfill')>('temporal-polyfill');

/**
 * Wall-clock time in a space's IANA time zone, through Temporal (the polyfill until Node has
 * it): what the clock on the workshop wall shows at an instant, and which instant a wall time
 * means. Every wall-time computation of the hub goes through this file.
 */

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 1 = Monday .. 7 = Sunday. */
  dayOfWeek: number;
}

/** The last answer per zone: one decision asks for the same instant several times. */
const lastAnswer = new Map<string, { t: number; wall: WallTime }>();

export function wallTime(at: Date, zone: string): WallTime {
  const t = at.getTime();
  const last = lastAnswer.get(zone);
  if (last && last.t === t) return { ...last.wall };
  const wall = computeWallTime(at, zone);
  if (lastAnswer.size > 1000) lastAnswer.clear();
  lastAnswer.set(zone, { t, wall });
  return { ...wall };
}

/**
 * Per zone, a stretch of time with one UTC offset: from an instant Temporal was asked about up to
 * the zone's next offset change (at most a day on). Temporal through the polyfill costs 30-60 µs
 * per instant, which every switch-on paid; inside a known stretch the wall time is plain
 * arithmetic (under a microsecond).
 */
const stretches = new Map<string, { from: number; until: number; offsetMs: number }>();
const DAY_MS = 86_400_000;

function computeWallTime(at: Date, zone: string): WallTime {
  const t = at.getTime();
  let stretch = stretches.get(zone);
  if (!stretch || t < stretch.from || t >= stretch.until) {
    const z = polyfill().Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(zone);
    const next = z.getTimeZoneTransition('next');
    stretch = {
      from: t,
      until: Math.min(t + DAY_MS, next ? next.epochMilliseconds : Number.POSITIVE_INFINITY),
      offsetMs: z.offsetNanoseconds / 1e6,
    };
    if (stretches.size > 1000) stretches.clear();
    stretches.set(zone, stretch);
  }
  const wall = new Date(t + stretch.offsetMs);
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    dayOfWeek: wall.getUTCDay() || 7,
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DD` on the wall calendar. */
export function localDate(at: Date, zone: string): string {
  const w = wallTime(at, zone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

/** `YYYY-MM-DDTHH:MM` on the wall clock (the holiday format). */
export function localDateTime(at: Date, zone: string): string {
  const w = wallTime(at, zone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

/** Minutes the zone is ahead of UTC at this instant (Vienna: 60 in winter, 120 in summer). */
export function offsetMinutes(at: Date, zone: string): number {
  const z = polyfill().Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(zone);
  return Math.round(z.offsetNanoseconds / 60e9);
}

/**
 * The instant a wall time `YYYY-MM-DD[THH:MM[:SS]]` means in the zone. `24:00` is midnight at
 * the end of the day. Temporal's `later` disambiguation, the same in every zone: a wall time
 * skipped by a DST change (02:30 on a spring-forward night) moves forward by the length of the
 * gap (03:30); a repeated one (fall-back night) is its later occurrence (the one after the
 * clocks went back).
 */
export function zonedInstant(local: string, zone: string): Date {
  // The same wall times come back on every decision (today's opening and closing): Temporal
  // through the polyfill costs tens of µs each, a remembered answer nothing.
  const key = `${zone} ${local}`;
  const known = instants.get(key);
  if (known !== undefined) return new Date(known);
  const at = computeZonedInstant(local, zone);
  if (instants.size >= 10_000) instants.clear();
  instants.set(key, at.getTime());
  return at;
}

const instants = new Map<string, number>();

function computeZonedInstant(local: string, zone: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(local);
  if (!m) throw new Error(`not a wall time: ${local}`);
  const hour = Number(m[4] ?? 0);
  let wall = polyfill().Temporal.PlainDateTime.from(
    {
      year: Number(m[1]),
      month: Number(m[2]),
      day: Number(m[3]),
      hour: hour === 24 ? 0 : hour,
      minute: Number(m[5] ?? 0),
      second: Number(m[6] ?? 0),
    },
    { overflow: 'constrain' },
  );
  if (hour === 24) {
    if (wall.minute !== 0 || wall.second !== 0) throw new Error(`not a wall time: ${local}`);
    wall = wall.add({ days: 1 });
  }
  const instant = wall.toZonedDateTime(zone, { disambiguation: 'later' });
  return new Date(instant.epochMilliseconds);
}

/** Adds days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  return polyfill().Temporal.PlainDate.from(date).add({ days }).toString();
}

/** `HH:MM` -> minutes since midnight (`24:00` -> 1440). */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}
