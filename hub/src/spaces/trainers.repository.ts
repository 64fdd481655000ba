import { allWhere, type Db } from '../db/crud.js';

/** Ids of the courses a member trains. */
export async function coursesOfTrainer(db: Db, member: number): Promise<number[]> {
  return (await allWhere(db, 'course_trainers', { member }, ['course'])).map((r) => r.course);
}
