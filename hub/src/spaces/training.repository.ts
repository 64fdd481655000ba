import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { defined, now, updateLocked } from '../db/crud.js';
import type { MemberTrainingsTable, TrainingCoursesTable } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { notFound, unprocessable } from '../http/errors.js';
import { addDays } from './zoned-time.js';

export type TrainingCourseRow = Selectable<TrainingCoursesTable>;
export type MemberTrainingRow = Selectable<MemberTrainingsTable>;

export function trainingCourseRecord(row: TrainingCourseRow, resources: number[]) {
  return {
    id: row.id,
    account: row.account,
    title: row.title,
    notes: row.notes,
    state: row.state,
    defaultDuration: row.defaultDuration,
    defaultDurationUnit: row.defaultDurationUnit,
    resources,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

export function memberTrainingRecord(row: MemberTrainingRow) {
  return {
    id: row.id,
    member: row.member,
    trainingCourse: row.trainingCourse,
    date: row.date,
    fromDate: row.fromDate,
    untilDate: row.untilDate,
    notes: row.notes,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** Every member may read the account's courses (to know what to sign up for); admins manage them. */
export function visibleCourses(db: Db, caller: Caller) {
  const query = db.selectFrom('training_courses');
  return caller.superuser ? query : query.where('account', '=', caller.accountId);
}

export async function findCourse(db: Db, caller: Caller, id: number): Promise<TrainingCourseRow> {
  const row = await visibleCourses(db, caller).selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Training course');
  return row;
}

/** Resource ids per course, for a page of courses. */
export async function courseResources(db: Db, courseIds: number[]): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>(courseIds.map((id) => [id, []]));
  if (courseIds.length === 0) return map;
  const rows = await db
    .selectFrom('training_course_resources')
    .select(['course', 'resource'])
    .where('course', 'in', courseIds)
    .orderBy('resource')
    .execute();
  for (const r of rows) map.get(r.course)?.push(r.resource);
  return map;
}

/** Checks that every resource id belongs to the course's account (422 naming the strangers). */
async function checkResources(db: Db, account: number, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return unique;
  const found = await db
    .selectFrom('resources')
    .select('id')
    .where('account', '=', account)
    .where('id', 'in', unique)
    .execute();
  const known = new Set(found.map((r) => r.id));
  const unknown = unique.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw unprocessable(`Unknown resources: ${unknown.join(', ')}`, { unknownResources: unknown });
  }
  return unique;
}

type CourseInput = Record<string, unknown> & { resources?: number[] };

export async function createCourse(db: Db, caller: Caller, input: CourseInput) {
  const { resources, ...fields } = input;
  const ids = await checkResources(db, caller.accountId, resources ?? []);
  return db.transaction().execute(async (trx) => {
    const at = now();
    const row = await trx
      .insertInto('training_courses')
      .values({
        ...(defined(fields) as any),
        account: caller.accountId,
        createdAt: at,
        updatedAt: at,
        updatedBy: caller.memberId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (ids.length > 0) {
      await trx
        .insertInto('training_course_resources')
        .values(ids.map((resource) => ({ course: row.id, resource })))
        .execute();
    }
    return row;
  });
}

export async function updateCourse(
  db: Db,
  caller: Caller,
  id: number,
  input: CourseInput & { lockVersion: number },
) {
  const current = await findCourse(db, caller, id);
  const { resources, lockVersion, ...fields } = input;
  const ids = resources === undefined ? undefined : await checkResources(db, current.account, resources);
  await db.transaction().execute(async (trx) => {
    await updateLocked(trx, 'training_courses', id, lockVersion, defined(fields), caller.memberId);
    if (ids !== undefined) {
      await trx.deleteFrom('training_course_resources').where('course', '=', id).execute();
      if (ids.length > 0) {
        await trx
          .insertInto('training_course_resources')
          .values(ids.map((resource) => ({ course: id, resource })))
          .execute();
      }
    }
  });
  return findCourse(db, caller, id);
}

/** The end of validity a course's default duration gives a training taken on `from`. */
export function defaultUntil(course: TrainingCourseRow, from: string): string | null {
  const n = course.defaultDuration;
  if (!n || !course.defaultDurationUnit) return null;
  const d = new Date(`${from}T00:00:00Z`);
  switch (course.defaultDurationUnit) {
    case 'day':
      return addDays(from, n);
    case 'week':
      return addDays(from, 7 * n);
    case 'month':
      d.setUTCMonth(d.getUTCMonth() + n);
      return d.toISOString().slice(0, 10);
    case 'year':
      d.setUTCFullYear(d.getUTCFullYear() + n);
      return d.toISOString().slice(0, 10);
    default:
      return null;
  }
}

export async function findMemberTraining(db: Db, memberId: number, id: number): Promise<MemberTrainingRow> {
  const row = await db
    .selectFrom('member_trainings')
    .selectAll()
    .where('member', '=', memberId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Member training');
  return row;
}
