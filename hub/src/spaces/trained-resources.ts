import type { Db } from '../db/crud.js';
import { localDate } from './zoned-time.js';

/**
 * The resources requiring training whose training the member has: a training of an active
 * course for the resource, valid on today's date in the member's space (the same rule the
 * access policy applies, spaces/access.rules.ts trainingOutcome).
 */
export async function trainedResources(
  db: Db,
  member: { id: number; account: number; space: number },
  at: Date,
): Promise<number[]> {
  const space = await db
    .selectFrom('spaces')
    .select('timezone')
    .where('id', '=', member.space)
    .executeTakeFirst();
  const today = localDate(at, space?.timezone ?? 'UTC');
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
