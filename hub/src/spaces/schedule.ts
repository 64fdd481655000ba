import {
  addDays,
  localDate,
  localDateTime,
  minutesOf,
  wallTime,
  zonedInstant,
} from '../kernel/zoned-time.js';

/** One opening range of a weekday, space-local (`untilTime` may be `24:00`). */
export interface OpeningRange {
  dayOfWeek: number;
  fromTime: string;
  untilTime: string;
}

/** A holiday: space-local wall times `YYYY-MM-DDTHH:MM`, from inclusive, until exclusive. */
export interface HolidaySpan {
  fromDateTime: string;
  untilDateTime: string;
}

/** Ranges that overlap or run backwards, as messages (empty when the list is fine). */
export function openingHoursProblems(hours: OpeningRange[]): string[] {
  const problems: string[] = [];
  for (const h of hours) {
    if (minutesOf(h.untilTime) <= minutesOf(h.fromTime)) {
      problems.push(`day ${h.dayOfWeek}: ${h.fromTime}-${h.untilTime} ends before it starts`);
    }
  }
  for (let day = 1; day <= 7; day++) {
    const ranges = hours
      .filter((h) => h.dayOfWeek === day && minutesOf(h.untilTime) > minutesOf(h.fromTime))
      .sort((a, b) => minutesOf(a.fromTime) - minutesOf(b.fromTime));
    for (let i = 1; i < ranges.length; i++) {
      if (minutesOf(ranges[i].fromTime) < minutesOf(ranges[i - 1].untilTime)) {
        problems.push(
          `day ${day}: ${ranges[i - 1].fromTime}-${ranges[i - 1].untilTime} overlaps ${ranges[i].fromTime}-${ranges[i].untilTime}`,
        );
      }
    }
  }
  return problems;
}

/**
 * When the space closes if it is open at `at`: the end of the opening range around that
 * moment (ranges that touch, 09:00-12:00 and 12:00-18:00, count as one). null when closed.
 * A space without any opening hours is open at all times: use `hours.length === 0` first.
 */
export function closingTime(hours: OpeningRange[], at: Date, zone: string): Date | null {
  const wall = wallTime(at, zone);
  const minute = wall.hour * 60 + wall.minute;
  const ranges = hours
    .filter((h) => h.dayOfWeek === wall.dayOfWeek)
    .sort((a, b) => minutesOf(a.fromTime) - minutesOf(b.fromTime));
  const index = ranges.findIndex((r) => minutesOf(r.fromTime) <= minute && minute < minutesOf(r.untilTime));
  if (index === -1) return null;
  let until = ranges[index].untilTime;
  for (let i = index + 1; i < ranges.length && ranges[i].fromTime === until; i++) until = ranges[i].untilTime;
  const date = localDate(at, zone);
  return until === '24:00' ? zonedInstant(addDays(date, 1), zone) : zonedInstant(`${date}T${until}`, zone);
}

/** When the space opens next after `at` (within a week); null when no range starts later. */
export function nextOpening(hours: OpeningRange[], at: Date, zone: string): Date | null {
  const wall = wallTime(at, zone);
  const minute = wall.hour * 60 + wall.minute;
  const today = localDate(at, zone);
  for (let offset = 0; offset <= 7; offset++) {
    const day = ((wall.dayOfWeek - 1 + offset) % 7) + 1;
    const starts = hours
      .filter((h) => h.dayOfWeek === day && (offset > 0 || minutesOf(h.fromTime) > minute))
      .map((h) => h.fromTime)
      .sort();
    if (starts.length > 0) return zonedInstant(`${addDays(today, offset)}T${starts[0]}`, zone);
  }
  return null;
}

/** Is the space open for the whole of [from, until)? (Within one opening range of one day.) */
export function withinOpeningHours(hours: OpeningRange[], from: Date, until: Date, zone: string): boolean {
  if (hours.length === 0) return true;
  const closes = closingTime(hours, from, zone);
  return closes !== null && until.getTime() <= closes.getTime();
}

/** The holiday covering `at`, if any. */
export function holidayAt(holidays: HolidaySpan[], at: Date, zone: string): HolidaySpan | undefined {
  const local = localDateTime(at, zone);
  return holidays.find((h) => h.fromDateTime <= local && local < h.untilDateTime);
}

/** Holidays that overlap [from, until). */
export function holidaysDuring(
  holidays: HolidaySpan[],
  from: Date,
  until: Date,
  zone: string,
): HolidaySpan[] {
  const a = localDateTime(from, zone);
  // A booking ending at 10:00 does not touch a holiday from 10:00; ending 10:00:30 does.
  const untilWall = localDateTime(until, zone);
  const b = until.getTime() % 60_000 === 0 ? untilWall : `${untilWall}~`;
  return holidays.filter((h) => h.fromDateTime < b && a < h.untilDateTime);
}

/** The next holiday starting after `at` (for a session's maxDuration). */
export function nextHolidayStart(holidays: HolidaySpan[], at: Date, zone: string): Date | null {
  const local = localDateTime(at, zone);
  const next = holidays
    .filter((h) => h.fromDateTime > local)
    .sort((x, y) => x.fromDateTime.localeCompare(y.fromDateTime))[0];
  return next ? zonedInstant(next.fromDateTime, zone) : null;
}
