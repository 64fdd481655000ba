/** Wall-clock time in a space's time zone, for package dates and permission time tables. */
export interface LocalTime {
  /** YYYY-MM-DD */
  date: string;
  /** 1 (Monday) .. 7 (Sunday) */
  dayOfWeek: number;
  /** Seconds since local midnight. */
  secondOfDay: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

const weekdays: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

export function localTime(at: Date, timeZone: string): LocalTime {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = formatter(timeZone).formatToParts(at);
  } catch {
    parts = formatter('UTC').formatToParts(at);
  }
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '0';
  return {
    date: `${get('year')}-${get('month')}-${get('day')}`,
    dayOfWeek: weekdays[get('weekday')] ?? 1,
    secondOfDay: Number(get('hour')) * 3600 + Number(get('minute')) * 60 + Number(get('second')),
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
