import type { Insertable } from 'kysely';
import type { Db } from '../db/crud.js';
import type { TrainingTapsTable } from '../db/schema.js';

export function insertTrainingTap(db: Db, row: Insertable<TrainingTapsTable>) {
  return db.insertInto('training_taps').values(row).returningAll().executeTakeFirstOrThrow();
}

export function trainingTapById(db: Db, id: number) {
  return db.selectFrom('training_taps').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Ends the waits at a resource (a new one replaces them). */
export async function cancelWaitingTaps(db: Db, resource: number): Promise<void> {
  await db
    .updateTable('training_taps')
    .set({ state: 'cancelled' })
    .where('resource', '=', resource)
    .where('state', '=', 'waiting')
    .execute();
}

export async function cancelTrainingTap(db: Db, id: number): Promise<boolean> {
  const result = await db
    .updateTable('training_taps')
    .set({ state: 'cancelled' })
    .where('id', '=', id)
    .where('state', '=', 'waiting')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The newest wait at a resource that has not expired at `at`, if any (asked at every card tap). */
export function waitingTapAt(db: Db, resource: number, at: string) {
  return db
    .selectFrom('training_taps')
    .selectAll()
    .where('resource', '=', resource)
    .where('state', '=', 'waiting')
    .where('expiresAt', '>', at)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Takes the wait for this trainee, once: false when another tap (or a cancel) was first. */
export async function claimTrainingTap(db: Db, id: number, trainee: number): Promise<boolean> {
  const result = await db
    .updateTable('training_taps')
    .set({ state: 'recorded', trainee })
    .where('id', '=', id)
    .where('state', '=', 'waiting')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function noteTrainingOfTap(db: Db, id: number, memberTraining: number): Promise<void> {
  await db.updateTable('training_taps').set({ memberTraining }).where('id', '=', id).execute();
}
