import type { ReportInterval, ReportPeriod } from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import type { RangePage } from '../db/range-page.js';
import { badRequest } from '../errors.js';
import type { Caller } from '../kernel/caller.js';
import { spaceTimeZone } from '../spaces/spaces.repository.js';
import { addDays, localDate, zonedInstant } from '../kernel/zoned-time.js';

/**
 * The periods of a report: whole days of the space's time zone from `from` to `until`, cut into
 * days, weeks (Monday to Sunday) or calendar months of that zone. The first and last period are
 * cut to the range. Pure: the reports' repositories read rows, these functions place them.
 */
export interface ReportFrame {
  from: string;
  until: string;
  interval: ReportInterval;
  timeZone: string;
  periods: ReportPeriod[];
  /** The range as instants (ISO, UTC): from the first day's midnight to the midnight after the last. */
  startsAt: string;
  endsAt: string;
  /** Where each period starts, and the range ends (ms since the epoch): one more than periods. */
  bounds: number[];
}

/** At most this many periods (400 days, about 8 years of weeks, 33 of months). */
export const MAX_PERIODS = 400;

const invalid = (field: string, message: string) =>
  badRequest(`query.${field}: ${message}`, { validation: [{ path: field, message }] });

function periodEnd(start: string, interval: ReportInterval): string {
  if (interval === 'day') return start;
  if (interval === 'week') {
    const weekday = new Date(`${start}T12:00:00Z`).getUTCDay() || 7;
    return addDays(start, 7 - weekday);
  }
  const [y, m] = start.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/**
 * The frame of a report query; the range defaults to the 30 days up to today in the zone.
 * A range that ends before it starts, or has more than MAX_PERIODS periods, is a 400 naming
 * `until`.
 */
export function reportFrame(
  query: { from?: string; until?: string; interval?: ReportInterval },
  timeZone: string,
  now: Date,
): ReportFrame {
  const interval = query.interval ?? 'day';
  const until = query.until ?? localDate(now, timeZone);
  const from = query.from ?? addDays(until, -29);
  if (until < from) throw invalid('until', 'must not lie before query.from');
  const periods: ReportPeriod[] = [];
  for (let start = from; start <= until; start = addDays(periods[periods.length - 1].until, 1)) {
    if (periods.length === MAX_PERIODS)
      throw invalid('until', `the range holds more than ${MAX_PERIODS} periods of a ${interval}`);
    const end = periodEnd(start, interval);
    periods.push({ from: start, until: end < until ? end : until });
  }
  const bounds = [...periods.map((p) => p.from), addDays(until, 1)].map((day) =>
    zonedInstant(day, timeZone).getTime(),
  );
  return {
    from,
    until,
    interval,
    timeZone,
    periods,
    startsAt: new Date(bounds[0]).toISOString(),
    endsAt: new Date(bounds[bounds.length - 1]).toISOString(),
    bounds,
  };
}

/** The index of the period holding a day (YYYY-MM-DD), or -1 outside the range. */
export function periodOfDate(frame: ReportFrame, date: string): number {
  const { periods } = frame;
  let lo = 0;
  let hi = periods.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (date < periods[mid].from) hi = mid - 1;
    else if (date > periods[mid].until) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/**
 * The index of the period holding an instant (a stored ISO timestamp), or -1 outside the range:
 * a search among the periods' first instants, so a row costs no time-zone arithmetic.
 */
export function periodOfInstant(frame: ReportFrame, at: string): number {
  const t = Date.parse(at);
  const { bounds } = frame;
  if (!(t >= bounds[0] && t < bounds[bounds.length - 1])) return -1;
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bounds[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The report's answer frame (what every report says besides its figures). */
export function frameAnswer(frame: ReportFrame) {
  const { from, until, interval, timeZone, periods } = frame;
  return { from, until, interval, timeZone, periods };
}

/** The frame of a report for the caller's space, in that space's time zone. */
export async function reportFrameFor(
  db: Db,
  caller: Caller,
  query: { from?: string; until?: string; interval?: ReportInterval },
  now: Date,
): Promise<ReportFrame> {
  return reportFrame(query, await spaceTimeZone(db, caller.spaceId), now);
}

/** Rows a report reads per query: a page holds SQLite for some tens of milliseconds at most. */
export const REPORT_PAGE = 2000;

/**
 * Every row of the account in the frame's range that a paged read gives, page after page by id,
 * letting other work run between pages: on SQLite a query holds the hub's one connection (and
 * its event loop) until it ends.
 */
export async function* pages<R extends { id: number }>(
  account: number,
  frame: Pick<ReportFrame, 'startsAt' | 'endsAt'>,
  read: (page: RangePage) => Promise<R[]>,
): AsyncGenerator<R> {
  let afterId = 0;
  for (;;) {
    const rows = await read({
      account,
      startsAt: frame.startsAt,
      endsAt: frame.endsAt,
      afterId,
      limit: REPORT_PAGE,
    });
    yield* rows;
    if (rows.length < REPORT_PAGE) return;
    afterId = rows[rows.length - 1].id;
    await new Promise(setImmediate);
  }
}
