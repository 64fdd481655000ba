import { locale } from '../i18n/i18n';

/**
 * Wall times in a space's time zone, with Intl only (as the hub's zoned-time.ts): the admin's
 * browser may sit in another zone than the space, and the pages show the space's.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
}

export interface Wall {
  /** YYYY-MM-DD */
  date: string;
  /** HH:MM */
  time: string;
  /** Minutes since the day's midnight. */
  minutes: number;
  /** 1 = Monday .. 7 = Sunday */
  dayOfWeek: number;
}

export function wall(at: Date | string, zone: string): Wall {
  const p = Object.fromEntries(
    format(zone)
      .formatToParts(typeof at === 'string' ? new Date(at) : at)
      .map((x) => [x.type, x.value]),
  );
  const date = `${p.year}-${p.month}-${p.day}`;
  return {
    date,
    time: `${p.hour}:${p.minute}`,
    minutes: Number(p.hour) * 60 + Number(p.minute),
    dayOfWeek: dayOfWeek(date),
  };
}

/** The instant of a wall time in `zone` (`24:00` is the next midnight). */
export function instant(date: string, time: string, zone: string): Date {
  if (time === '24:00') return instant(addDays(date, 1), '00:00', zone);
  const target = Date.parse(`${date}T${time}:00Z`);
  let guess = target;
  for (let i = 0; i < 3; i++) {
    const w = wall(new Date(guess), zone);
    const diff = Date.parse(`${w.date}T${w.time}:00Z`) - target;
    if (diff === 0) break;
    guess -= diff;
  }
  return new Date(guess);
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function dayOfWeek(date: string): number {
  return ((new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7) + 1;
}

export const mondayOf = (date: string) => addDays(date, 1 - dayOfWeek(date));

/** "Tue 24 Nov" (with the year when asked). */
export function dayLabel(date: string, withYear = false): string {
  const label = new Date(`${date}T12:00:00Z`).toLocaleDateString(locale(), {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  });
  return withYear ? `${label} ${date.slice(0, 4)}` : label;
}

/** A space-local `YYYY-MM-DDTHH:MM` (holidays) in words: "Thu 24 Dec 2026 14:00". */
export const localLabel = (local: string) => `${dayLabel(local.slice(0, 10), true)} ${local.slice(11, 16)}`;

export const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
