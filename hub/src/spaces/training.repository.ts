import type { Selectable, SelectQueryBuilder } from 'kysely';
import { type Db, firstWhere, selectWhere } from '../db/crud.js';
import { defined } from '../db/crud.js';
import { insertRow } from '../db/collection-rows.js';
import { recordEvents, recordOf } from '../db/records.js';
import type { MemberTrainingsTable, TrainingCoursesTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { conflict, unprocessable } from '../errors.js';
import { spaceTimeZone } from './spaces.repository.js';
import { addDays, localDate } from '../kernel/zoned-time.js';
import { memberEventRecord } from '../identity/members.js';

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
  return recordOf(row, [
    'id',
    'member',
    'trainingCourse',
    'date',
    'fromDate',
    'untilDate',
    'trainer',
    'signedBy',
    'notes',
  ]);
}

/** Member trainings the caller sees: admins their account's, other members their own and those they signed. */
export function visibleMemberTrainings(db: Db, caller: Caller) {
  let query = db.selectFrom('member_trainings');
  if (!caller.superuser) query = query.where('member_trainings.account', '=', caller.accountId);
  if (!isAdmin(caller)) {
    query = query.where((eb) =>
      eb.or([
        eb('member_trainings.member', '=', caller.memberId),
        eb('member_trainings.signedBy', '=', caller.memberId),
      ]),
    );
  }
  return query;
}

/** Filters of the account's trainings: member, course, and a range of the last valid day. */
export function trainingsUntil<Q extends SelectQueryBuilder<any, 'member_trainings', object>>(
  query: Q,
  filter: {
    member?: number;
    trainingCourse?: number;
    signedBy?: number;
    untilFrom?: string;
    untilTo?: string;
  },
): Q {
  let q = query as SelectQueryBuilder<any, 'member_trainings', object>;
  if (filter.member) q = q.where('member_trainings.member', '=', filter.member);
  if (filter.signedBy) q = q.where('member_trainings.signedBy', '=', filter.signedBy);
  if (filter.trainingCourse) q = q.where('member_trainings.trainingCourse', '=', filter.trainingCourse);
  if (filter.untilFrom) q = q.where('member_trainings.untilDate', '>=', filter.untilFrom);
  if (filter.untilTo) q = q.where('member_trainings.untilDate', '<=', filter.untilTo);
  return q as Q;
}

/** Member training records of a page; `member` embeds each one's member's name (read once per page). */
export async function memberTrainingRecords(db: Db, rows: MemberTrainingRow[], embed: readonly string[]) {
  if (!embed.includes('member')) return rows.map(memberTrainingRecord);
  const ids = [...new Set(rows.map((r) => r.member))];
  const members = ids.length
    ? await db.selectFrom('members').select(['id', 'firstName', 'lastName']).where('id', 'in', ids).execute()
    : [];
  const byId = new Map(members.map((m) => [m.id, m]));
  return rows.map((r) => ({ ...memberTrainingRecord(r), _embedded: { member: byId.get(r.member) ?? null } }));
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
  const known = new Set(
    (await selectWhere(db, 'resources', { account, id: unique }, { columns: ['id'] })).map((r) => r.id),
  );
  const unknown = unique.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw unprocessable(`Unknown resources: ${unknown.join(', ')}`, { unknownResources: unknown });
  }
  return unique;
}

type CourseInput = Record<string, unknown> & { resources?: number[] };

/** The resources a course qualifies for, replaced by `ids`. */
async function setCourseResources(trx: Db, course: number, ids: number[]): Promise<void> {
  await trx.deleteFrom('training_course_resources').where('course', '=', course).execute();
  if (ids.length > 0) {
    await trx
      .insertInto('training_course_resources')
      .values(ids.map((resource) => ({ course, resource })))
      .execute();
  }
}

export async function createCourse(trx: Db, caller: Caller, input: CourseInput, at: string) {
  const { resources, ...fields } = input;
  const ids = await checkResources(trx, caller.accountId, resources ?? []);
  const row = await insertRow(
    trx,
    'training_courses',
    { ...defined(fields), account: caller.accountId },
    { at, by: caller.memberId },
  );
  await setCourseResources(trx, row.id, ids);
  return row;
}

/** The columns a course update writes; its resources are replaced at once (in `trx`) when sent. */
export async function courseChanges(trx: Db, course: TrainingCourseRow, input: CourseInput) {
  const { resources, lockVersion: _, ...fields } = input;
  if (resources !== undefined) {
    await setCourseResources(trx, course.id, await checkResources(trx, course.account, resources));
  }
  return defined(fields);
}

/** A course that members' trainings refer to stays (409): it can be set inactive instead. */
export async function refuseDeleteOfTakenCourse(db: Db, course: TrainingCourseRow): Promise<void> {
  const taken = await db
    .selectFrom('member_trainings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('trainingCourse', '=', course.id)
    .executeTakeFirstOrThrow();
  if (Number(taken.n) > 0) {
    throw conflict(
      `${taken.n} member training(s) refer to this course; set it inactive instead, or delete them first`,
      { memberTrainings: Number(taken.n) },
    );
  }
}

type CourseQuery = SelectQueryBuilder<any, 'training_courses', object>;

/** Courses a member trains. */
export function coursesTrainedBy<Q extends CourseQuery>(query: Q, member: number): Q {
  return coursesLinked(query, 'course_trainers', 'member', member);
}

/** Courses that qualify for a resource. */
export function coursesOfResource<Q extends CourseQuery>(query: Q, resource: number): Q {
  return coursesLinked(query, 'training_course_resources', 'resource', resource);
}

/** Courses named by the rows of a link table whose `column` is `value`. */
function coursesLinked<Q extends CourseQuery>(
  query: Q,
  table: 'course_trainers' | 'training_course_resources',
  column: 'member' | 'resource',
  value: number,
): Q {
  return query.where('training_courses.id', 'in', (eb: any) =>
    eb.selectFrom(table).select('course').where(column, '=', value),
  ) as Q;
}

/**
 * Records that a member took a course: on `date` (default today in the member's space), valid
 * from `fromDate` (default the date) until `untilDate` (default from the course's duration).
 */
export async function createMemberTraining(
  trx: Db,
  input: {
    member: { id: number; account: number; space: number };
    caller: Caller;
    body: {
      trainingCourse: number;
      date?: string;
      fromDate?: string | null;
      untilDate?: string | null;
      trainer?: string | null;
      notes?: string | null;
    };
    at: Date;
  },
): Promise<MemberTrainingRow> {
  const { member, caller, body } = input;
  const course = await firstWhere(trx, 'training_courses', {
    id: body.trainingCourse,
    account: member.account,
  });
  if (!course) {
    throw unprocessable(`Training course ${body.trainingCourse} does not exist`, {
      unknownTrainingCourse: true,
    });
  }
  const date = body.date ?? localDate(input.at, await spaceTimeZone(trx, member.space));
  const fromDate = body.fromDate === undefined ? date : body.fromDate;
  const untilDate = body.untilDate === undefined ? defaultUntil(course, fromDate ?? date) : body.untilDate;
  if (fromDate && untilDate && untilDate < fromDate) {
    throw unprocessable('untilDate must not be before fromDate', { invalidRange: true });
  }
  const row = await insertRow(
    trx,
    'member_trainings',
    {
      account: member.account,
      member: member.id,
      trainingCourse: course.id,
      date,
      fromDate,
      untilDate,
      trainer: body.trainer ?? null,
      signedBy: caller.memberId || null,
      notes: body.notes ?? null,
    },
    { at: input.at.toISOString(), by: caller.memberId },
  );
  await emitMemberTraining(trx, 'memberTraining_created', row);
  return row;
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

export const emitMemberTraining = recordEvents<MemberTrainingRow, 'memberTraining'>(async (db, row) => ({
  memberTraining: memberTrainingRecord(row),
  member: await memberEventRecord(db, row.member),
}));

/** The columns of a change to a member training: the dates and notes sent, in a valid range. */
export function memberTrainingChanges(
  row: MemberTrainingRow,
  body: {
    date?: string;
    fromDate?: string | null;
    untilDate?: string | null;
    trainer?: string | null;
    notes?: string | null;
  },
) {
  const fromDate = body.fromDate === undefined ? row.fromDate : body.fromDate;
  const untilDate = body.untilDate === undefined ? row.untilDate : body.untilDate;
  if (fromDate && untilDate && untilDate < fromDate) {
    throw unprocessable('untilDate must not be before fromDate', { invalidRange: true });
  }
  return defined({
    date: body.date,
    fromDate: body.fromDate,
    untilDate: body.untilDate,
    trainer: body.trainer,
    notes: body.notes,
  });
}

/** The trainings of these members, newest first. */
export function trainingsOfMembers(db: Db, memberIds: number[]) {
  return db
    .selectFrom('member_trainings')
    .selectAll()
    .where('member', 'in', memberIds)
    .orderBy('date', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/**
 * Ids of the account's resources requiring training for which the member holds a training of
 * an active course valid on `today` (YYYY-MM-DD).
 */
export async function trainedResourceIds(
  db: Db,
  member: { id: number; account: number },
  today: string,
): Promise<number[]> {
  const rows = await db
    .selectFrom('member_trainings as t')
    .innerJoin('training_courses as c', 'c.id', 't.trainingCourse')
    .innerJoin('training_course_resources as r', 'r.course', 'c.id')
    .innerJoin('resources as res', 'res.id', 'r.resource')
    .select('res.id')
    .distinct()
    .where('t.member', '=', member.id)
    .where('c.state', '=', 'active')
    .where('res.account', '=', member.account)
    .where('res.requiresTraining', '=', 1)
    .where((eb) => eb.or([eb('t.fromDate', 'is', null), eb('t.fromDate', '<=', today)]))
    .where((eb) => eb.or([eb('t.untilDate', 'is', null), eb('t.untilDate', '>=', today)]))
    .orderBy('res.id')
    .execute();
  return rows.map((r) => r.id);
}
