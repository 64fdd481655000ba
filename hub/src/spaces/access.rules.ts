import type { AccessRule, ResourceRow, RuleOutcome } from '../access/policy.js';
import { ruleOrder } from '../access/policy.js';
import type { Db } from '../db/crud.js';
import { closingTime, type HolidaySpan, holidayAt, nextHolidayStart, type OpeningRange } from './schedule.js';
import { localDate, localDateTime } from './zoned-time.js';

/*
 * DESIGN 5's space rules. Each is a pure function of the facts it needs (tested with a fixed
 * clock) plus a thin AccessRule that loads those facts. Admins and owners pass all of them.
 */

export interface BookingSpan {
  member: number;
  fromDateTime: string;
  untilDateTime: string;
}

export interface TrainingSpan {
  fromDate: string | null;
  untilDate: string | null;
}

const seconds = (from: Date, until: Date) =>
  Math.max(0, Math.floor((until.getTime() - from.getTime()) / 1000));

/** Closed outside the opening hours; inside, the session may run until closing. No hours: always open. */
export function openingHoursOutcome(zone: string, hours: OpeningRange[], at: Date): RuleOutcome {
  if (hours.length === 0) return undefined;
  const closes = closingTime(hours, at, zone);
  if (!closes) return { deny: 'openingHours' };
  return { maxDuration: seconds(at, closes) };
}

/** Closed during a holiday; otherwise the session may run until the next holiday starts. */
export function holidayOutcome(zone: string, holidays: HolidaySpan[], at: Date): RuleOutcome {
  if (holidayAt(holidays, at, zone)) return { deny: 'holiday' };
  const next = nextHolidayStart(holidays, at, zone);
  return next ? { maxDuration: seconds(at, next) } : undefined;
}

/** Someone else's confirmed booking covers now: denied; else the session ends when the next one starts. */
export function bookingOutcome(bookings: BookingSpan[], memberId: number | null, at: Date): RuleOutcome {
  const now = at.toISOString();
  const foreign = bookings.filter((b) => b.member !== memberId && b.untilDateTime > now);
  if (foreign.some((b) => b.fromDateTime <= now)) return { deny: 'booking' };
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
  return valid ? undefined : { deny: 'noPermission' };
}

// ---- loaders ----

async function spaceZone(db: Db, spaceId: number): Promise<string> {
  const row = await db.selectFrom('spaces').select('timezone').where('id', '=', spaceId).executeTakeFirst();
  return row?.timezone ?? 'UTC';
}

/** Confirmed bookings of the resource that have not ended (the next 60 days are plenty for a session). */
async function activeBookings(db: Db, resourceId: number, at: Date): Promise<BookingSpan[]> {
  const horizon = new Date(at.getTime() + 60 * 86_400_000).toISOString();
  return db
    .selectFrom('bookings')
    .select(['member', 'fromDateTime', 'untilDateTime'])
    .where('resource', '=', resourceId)
    .where('state', '=', 'confirmed')
    .where('untilDateTime', '>', at.toISOString())
    .where('fromDateTime', '<', horizon)
    .execute();
}

export function spaceRules(): AccessRule[] {
  return [
    {
      name: 'training',
      order: ruleOrder.training,
      adminsPass: true,
      async check({ db, resource, member, at }) {
        if (!resource.requiresTraining) return undefined;
        if (!member) return { deny: 'noPermission' };
        const trainings = await db
          .selectFrom('member_trainings as t')
          .innerJoin('training_courses as c', 'c.id', 't.trainingCourse')
          .innerJoin('training_course_resources as r', 'r.course', 'c.id')
          .select(['t.fromDate', 't.untilDate'])
          .where('t.member', '=', member.id)
          .where('r.resource', '=', resource.id)
          .where('c.state', '=', 'active')
          .execute();
        return trainingOutcome(resource, trainings, localDate(at, await spaceZone(db, resource.space)));
      },
    },
    {
      name: 'openingHours',
      order: ruleOrder.openingHours,
      adminsPass: true,
      async check({ db, resource, at }) {
        const hours = await db
          .selectFrom('opening_hours')
          .select(['dayOfWeek', 'fromTime', 'untilTime'])
          .where('space', '=', resource.space)
          .execute();
        if (hours.length === 0) return undefined;
        return openingHoursOutcome(await spaceZone(db, resource.space), hours, at);
      },
    },
    {
      name: 'holiday',
      order: ruleOrder.holiday,
      adminsPass: true,
      async check({ db, resource, at }) {
        const zone = await spaceZone(db, resource.space);
        // Holidays that have not ended yet (wall-time strings compare in time order).
        const holidays = await db
          .selectFrom('holidays')
          .select(['fromDateTime', 'untilDateTime'])
          .where('space', '=', resource.space)
          .where('untilDateTime', '>', localDateTime(at, zone))
          .execute();
        return holidayOutcome(zone, holidays, at);
      },
    },
    {
      name: 'booking',
      order: ruleOrder.booking,
      adminsPass: true,
      async check({ db, resource, member, at }) {
        return bookingOutcome(await activeBookings(db, resource.id, at), member?.id ?? null, at);
      },
    },
    {
      name: 'requiresBooking',
      order: ruleOrder.booking + 1,
      adminsPass: true,
      async check({ db, resource, member, at }) {
        if (!resource.mustBeBooked) return undefined;
        return requiresBookingOutcome(
          resource,
          await activeBookings(db, resource.id, at),
          member?.id ?? null,
          at,
        );
      },
    },
  ];
}
