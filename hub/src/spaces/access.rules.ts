import type { AccessRule, ResourceRow, RuleOutcome, RuleRequest } from '../access/policy.js';
import { once, ruleOrder, zoneOf } from '../access/policy.js';
import {
  type BookingSpan,
  confirmedBookingSpans,
  coursesCovering,
  holidaySpansAfter,
  openingRanges,
  type TrainingSpan,
  trainingSpans,
} from './access.repository.js';
import {
  closingTime,
  type HolidaySpan,
  holidayAt,
  nextHolidayStart,
  nextOpening,
  type OpeningRange,
} from './schedule.js';
import { localDate, localDateTime, zonedInstant } from '../kernel/zoned-time.js';

/*
 * DESIGN 5's space rules. Each is a pure function of the facts it needs (tested with a fixed
 * clock) plus a thin AccessRule that loads those facts. Admins and owners pass all of them.
 */

export type { BookingSpan, TrainingSpan } from './access.repository.js';

const seconds = (from: Date, until: Date) =>
  Math.max(0, Math.floor((until.getTime() - from.getTime()) / 1000));

/** Closed outside the opening hours; inside, the session may run until closing. No hours: always open. */
export function openingHoursOutcome(zone: string, hours: OpeningRange[], at: Date): RuleOutcome {
  if (hours.length === 0) return undefined;
  const closes = closingTime(hours, at, zone);
  if (!closes) return { deny: 'openingHours', until: nextOpening(hours, at, zone) };
  return { maxDuration: seconds(at, closes) };
}

/** Closed during a holiday; otherwise the session may run until the next holiday starts. */
export function holidayOutcome(zone: string, holidays: HolidaySpan[], at: Date): RuleOutcome {
  const holiday = holidayAt(holidays, at, zone);
  if (holiday) return { deny: 'holiday', until: zonedInstant(holiday.untilDateTime, zone) };
  const next = nextHolidayStart(holidays, at, zone);
  return next ? { maxDuration: seconds(at, next) } : undefined;
}

/** Someone else's confirmed booking covers now: denied; else the session ends when the next one starts. */
export function bookingOutcome(bookings: BookingSpan[], memberId: number | null, at: Date): RuleOutcome {
  const now = at.toISOString();
  const foreign = bookings.filter((b) => b.member !== memberId && b.untilDateTime > now);
  const current = foreign.find((b) => b.fromDateTime <= now);
  if (current) {
    // Bookings by others that follow on without a gap keep the resource taken.
    let end = current.untilDateTime;
    for (const b of [...foreign].sort((x, y) => x.fromDateTime.localeCompare(y.fromDateTime))) {
      if (b.fromDateTime <= end && b.untilDateTime > end) end = b.untilDateTime;
    }
    return { deny: 'booking', until: new Date(end) };
  }
  const next = foreign.map((b) => b.fromDateTime).sort()[0];
  return next ? { maxDuration: seconds(at, new Date(next)) } : undefined;
}

/** A resource that must be booked needs an own booking now; the session ends with it (and any that follow on). */
export function requiresBookingOutcome(
  resource: Pick<ResourceRow, 'mustBeBooked'>,
  bookings: BookingSpan[],
  memberId: number | null,
  at: Date,
): RuleOutcome {
  if (!resource.mustBeBooked) return undefined;
  const now = at.toISOString();
  const own = bookings
    .filter((b) => b.member === memberId && b.untilDateTime > now)
    .sort((a, b) => a.fromDateTime.localeCompare(b.fromDateTime));
  const current = own.find((b) => b.fromDateTime <= now);
  if (!current) return { deny: 'requiresBooking' };
  let end = current.untilDateTime;
  for (const b of own) if (b.fromDateTime <= end && b.untilDateTime > end) end = b.untilDateTime;
  return { maxDuration: seconds(at, new Date(end)) };
}

/** A resource that requires training needs a training valid today (space-local) whose course covers it. */
export function trainingOutcome(
  resource: Pick<ResourceRow, 'requiresTraining'>,
  trainings: TrainingSpan[],
  today: string,
): RuleOutcome {
  if (!resource.requiresTraining) return undefined;
  const valid = trainings.some(
    (t) => (t.fromDate === null || t.fromDate <= today) && (t.untilDate === null || today <= t.untilDate),
  );
  if (valid) return undefined;
  // Say why when the member has the training but not today: it ended, or has not begun.
  const ended = trainings
    .map((t) => t.untilDate)
    .filter((d): d is string => d !== null && d < today)
    .sort()
    .at(-1);
  if (ended) {
    return {
      deny: 'noPermission',
      message: `Your training for this resource expired on ${ended}`,
      details: { trainingExpired: ended },
    };
  }
  const begins = trainings
    .map((t) => t.fromDate)
    .filter((d): d is string => d !== null && d > today)
    .sort()[0];
  if (begins) {
    return {
      deny: 'noPermission',
      message: `Your training for this resource is valid from ${begins}`,
      details: { trainingFrom: begins },
    };
  }
  return { deny: 'noPermission' };
}

// ---- loaders ----

/** Confirmed bookings of the resource that have not ended (the next 60 days are plenty for a session). */
function activeBookings(request: RuleRequest): Promise<BookingSpan[]> {
  const { reads, resource, at } = request;
  return once(request, 'bookings', () => {
    const horizon = new Date(at.getTime() + 60 * 86_400_000).toISOString();
    return confirmedBookingSpans(reads, resource.id, at.toISOString(), horizon);
  });
}

export function spaceRules(): AccessRule[] {
  return [
    {
      name: 'training',
      order: ruleOrder.training,
      adminsPass: true,
      async check(request) {
        const { reads, resource, member, at } = request;
        if (!resource.requiresTraining) return undefined;
        if (!member) return { deny: 'noPermission' };
        const trainings = await trainingSpans(reads, member.id, resource.id);
        const outcome = trainingOutcome(resource, trainings, localDate(at, await zoneOf(request)));
        if (!outcome || !('deny' in outcome)) return outcome;
        // Name the courses that would allow the resource, so the member knows what to book.
        const courses = await coursesCovering(reads, resource.id);
        return { ...outcome, details: { ...outcome.details, trainingCourses: courses } };
      },
    },
    {
      name: 'openingHours',
      order: ruleOrder.openingHours,
      adminsPass: true,
      async check(request) {
        const hours = await openingRanges(request.reads, request.resource.space);
        if (hours.length === 0) return undefined;
        return openingHoursOutcome(await zoneOf(request), hours, request.at);
      },
    },
    {
      name: 'holiday',
      order: ruleOrder.holiday,
      adminsPass: true,
      async check(request) {
        const zone = await zoneOf(request);
        // Holidays that have not ended yet (wall-time strings compare in time order).
        const holidays = await holidaySpansAfter(
          request.reads,
          request.resource.space,
          localDateTime(request.at, zone),
        );
        return holidayOutcome(zone, holidays, request.at);
      },
    },
    {
      name: 'booking',
      order: ruleOrder.booking,
      adminsPass: true,
      async check(request) {
        return bookingOutcome(await activeBookings(request), request.member?.id ?? null, request.at);
      },
    },
    {
      name: 'requiresBooking',
      order: ruleOrder.booking + 1,
      adminsPass: true,
      async check(request) {
        if (!request.resource.mustBeBooked) return undefined;
        return requiresBookingOutcome(
          request.resource,
          await activeBookings(request),
          request.member?.id ?? null,
          request.at,
        );
      },
    },
  ];
}
