import type { FastReads } from '../db/fast-reads.js';
import type { HolidaySpan, OpeningRange } from './schedule.js';

/*
 * The reads of the space rules (spaces/access.rules.ts) on the switch-on path: prepared
 * statements on the fast reads (db/fast-reads.ts).
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

/** Confirmed bookings of the resource ending after `from` and starting before `until`. */
export function confirmedBookingSpans(
  reads: FastReads,
  resourceId: number,
  from: string,
  until: string,
): Promise<BookingSpan[]> {
  return reads.rows<BookingSpan>(
    'select "member", "fromDateTime", "untilDateTime" from "bookings" where "resource" = ? and "state" = \'confirmed\' and "untilDateTime" > ? and "fromDateTime" < ?',
    [resourceId, from, until],
  );
}

/** The member's trainings of active courses that cover the resource. */
export function trainingSpans(
  reads: FastReads,
  memberId: number,
  resourceId: number,
): Promise<TrainingSpan[]> {
  return reads.rows<TrainingSpan>(
    'select "t"."fromDate", "t"."untilDate" from "member_trainings" as "t" inner join "training_courses" as "c" on "c"."id" = "t"."trainingCourse" inner join "training_course_resources" as "r" on "r"."course" = "c"."id" where "t"."member" = ? and "r"."resource" = ? and "c"."state" = \'active\'',
    [memberId, resourceId],
  );
}

/** The active courses that cover the resource, by title. */
export function coursesCovering(reads: FastReads, resourceId: number) {
  return reads.rows<{ id: number; title: string }>(
    'select "c"."id", "c"."title" from "training_courses" as "c" inner join "training_course_resources" as "r" on "r"."course" = "c"."id" where "r"."resource" = ? and "c"."state" = \'active\' order by "c"."title"',
    [resourceId],
  );
}

export function openingRanges(reads: FastReads, spaceId: number): Promise<OpeningRange[]> {
  return reads.rows<OpeningRange>(
    'select "dayOfWeek", "fromTime", "untilTime" from "opening_hours" where "space" = ?',
    [spaceId],
  );
}

/** The space's holidays ending after `localAt` (a wall-clock time of the space). */
export function holidaySpansAfter(
  reads: FastReads,
  spaceId: number,
  localAt: string,
): Promise<HolidaySpan[]> {
  return reads.rows<HolidaySpan>(
    'select "fromDateTime", "untilDateTime" from "holidays" where "space" = ? and "untilDateTime" > ?',
    [spaceId, localAt],
  );
}
