/**
 * Wall-clock time in a space's IANA time zone, from Intl alone (no date library): what the
 * clock on the workshop wall shows at an instant, and which instant a wall time means.
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

const formatters = new Map<string, Intl.DateTimeFormat>();
const weekdays: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
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

function computeWallTime(at: Date, zone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(at)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    dayOfWeek: weekdays[parts.weekday],
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
  const w = wallTime(at, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/**
 * The instant a wall time `YYYY-MM-DD[THH:MM[:SS]]` means in the zone. `24:00` is midnight at
 * the end of the day. A wall time skipped by a DST change (02:30 on a spring-forward night)
 * lands on the instant after the gap; a repeated one (fall-back) on its later occurrence.
 */
export function zonedInstant(local: string, zone: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(local);
  if (!m) throw new Error(`not a wall time: ${local}`);
  const guess = Date.UTC(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
  );
  const first = offsetMinutes(new Date(guess), zone);
  let instant = guess - first * 60_000;
  const second = offsetMinutes(new Date(instant), zone);
  if (second !== first) {
    // Near a transition: try the other offset; keep the one whose wall time matches, else the later.
    const alt = guess - second * 60_000;
    instant = offsetMinutes(new Date(alt), zone) === second ? Math.min(instant, alt) : Math.max(instant, alt);
  }
  return new Date(instant);
}

/** Adds days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** `HH:MM` -> minutes since midnight (`24:00` -> 1440). */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}
