import { type WallTime, wallTime } from '../kernel/zoned-time.js';

/** Wall-clock time in a space's time zone, for package dates and permission time tables. */
export interface LocalTime {
  /** YYYY-MM-DD */
  date: string;
  /** 1 (Monday) .. 7 (Sunday) */
  dayOfWeek: number;
  /** Seconds since local midnight. */
  secondOfDay: number;
}

/** The space's wall clock (spaces/zoned-time.ts) in the shape the billing rules use. */
export function localTime(at: Date, timeZone: string): LocalTime {
  let w: WallTime;
  try {
    w = wallTime(at, timeZone);
  } catch {
    // A zone the runtime does not know (validated on write, so only from old data): use UTC.
    w = wallTime(at, 'UTC');
  }
  return {
    date: `${String(w.year).padStart(4, '0')}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`,
    dayOfWeek: w.dayOfWeek,
    secondOfDay: w.hour * 3600 + w.minute * 60 + w.second,
  };
}

/** "HH:MM" -> seconds since midnight ("24:00" is the end of the day). */
export function clockSeconds(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 3600 + m * 60;
}

/** Adds calendar units to a YYYY-MM-DD date (month ends clamp: Jan 31 + 1 month = Feb 28/29). */
export function addPeriod(date: string, unit: string, count = 1): string {
  const [y, m, d] = date.split('-').map(Number);
  if (unit === 'day' || unit === 'week') {
    const t = Date.UTC(y, m - 1, d) + (unit === 'week' ? 7 : 1) * count * 86_400_000;
    return new Date(t).toISOString().slice(0, 10);
  }
  const months = unit === 'year' ? 12 * count : count;
  const targetMonth = m - 1 + months;
  const ty = y + Math.floor(targetMonth / 12);
  const tm = ((targetMonth % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  return new Date(Date.UTC(ty, tm, Math.min(d, lastDay))).toISOString().slice(0, 10);
}
