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

/** A prepared read: its statement, and the parameters each call passes in their order. */
function preparedRead<T, P extends unknown[]>(statement: string) {
  return (reads: FastReads, ...params: P): Promise<T[]> => reads.rows<T>(statement, params);
}

/** Confirmed bookings of the resource ending after `from` and starting before `until`. */
export const confirmedBookingSpans = preparedRead<
  BookingSpan,
  [resourceId: number, from: string, until: string]
>(
  'select "member", "fromDateTime", "untilDateTime" from "bookings" where "resource" = ? and "state" = \'confirmed\' and "untilDateTime" > ? and "fromDateTime" < ?',
);

/** The member's trainings of active courses that cover the resource. */
export const trainingSpans = preparedRead<TrainingSpan, [memberId: number, resourceId: number]>(
  'select "t"."fromDate", "t"."untilDate" from "member_trainings" as "t" inner join "training_courses" as "c" on "c"."id" = "t"."trainingCourse" inner join "training_course_resources" as "r" on "r"."course" = "c"."id" where "t"."member" = ? and "r"."resource" = ? and "c"."state" = \'active\'',
);

/** The active courses that cover the resource, by title. */
export const coursesCovering = preparedRead<{ id: number; title: string }, [resourceId: number]>(
  'select "c"."id", "c"."title" from "training_courses" as "c" inner join "training_course_resources" as "r" on "r"."course" = "c"."id" where "r"."resource" = ? and "c"."state" = \'active\' order by "c"."title"',
);

export const openingRanges = preparedRead<OpeningRange, [spaceId: number]>(
  'select "dayOfWeek", "fromTime", "untilTime" from "opening_hours" where "space" = ?',
);

/** The space's holidays ending after `localAt` (a wall-clock time of the space). */
export const holidaySpansAfter = preparedRead<HolidaySpan, [spaceId: number, localAt: string]>(
  'select "fromDateTime", "untilDateTime" from "holidays" where "space" = ? and "untilDateTime" > ?',
);
