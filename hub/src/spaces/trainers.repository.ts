import type { Db } from '../db/crud.js';

/** The trainers of a course, with their names, by name. */
export function trainersOfCourse(db: Db, course: number) {
  return db
    .selectFrom('course_trainers as t')
    .innerJoin('members as m', 'm.id', 't.member')
    .select(['t.course', 't.member', 't.createdAt', 't.createdBy', 'm.firstName', 'm.lastName'])
    .where('t.course', '=', course)
    .orderBy('m.firstName')
    .orderBy('m.lastName')
    .orderBy('t.member')
    .execute();
}

export function courseTrainer(db: Db, course: number, member: number) {
  return db
    .selectFrom('course_trainers')
    .selectAll()
    .where('course', '=', course)
    .where('member', '=', member)
    .executeTakeFirst();
}

export function insertCourseTrainer(
  db: Db,
  row: { course: number; member: number; account: number; createdAt: string; createdBy: number | null },
) {
  return db.insertInto('course_trainers').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function deleteCourseTrainer(db: Db, course: number, member: number): Promise<boolean> {
  const result = await db
    .deleteFrom('course_trainers')
    .where('course', '=', course)
    .where('member', '=', member)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Ids of the courses a member trains. */
export async function coursesOfTrainer(db: Db, member: number): Promise<number[]> {
  const rows = await db.selectFrom('course_trainers').select('course').where('member', '=', member).execute();
  return rows.map((r) => r.course);
}
