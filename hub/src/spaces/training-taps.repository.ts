import type { Insertable } from 'kysely';
import { type Db, firstWhere, insertReturning, selectFirstWhere, updateWhere } from '../db/crud.js';
import type { TrainingTapsTable } from '../db/schema.js';

export function insertTrainingTap(db: Db, row: Insertable<TrainingTapsTable>) {
  return insertReturning(db, 'training_taps', row);
}

export function trainingTapById(db: Db, id: number) {
  return firstWhere(db, 'training_taps', { id });
}

/** Ends the waits at a resource (a new one replaces them). */
export async function cancelWaitingTaps(db: Db, resource: number): Promise<void> {
  await updateWhere(db, 'training_taps', { resource, state: 'waiting' }, { state: 'cancelled' });
}

export async function cancelTrainingTap(db: Db, id: number): Promise<boolean> {
  return (await updateWhere(db, 'training_taps', { id, state: 'waiting' }, { state: 'cancelled' })) > 0;
}

/** The newest wait at a resource that has not expired at `at`, if any (asked at every card tap). */
export async function waitingTapAt(db: Db, resource: number, at: string) {
  const where = { resource, state: 'waiting', expiresAt: { '>': at } } as const;
  return selectFirstWhere(db, 'training_taps', where, { orderBy: ['id desc'] });
}

/** Takes the wait for this trainee, once: false when another tap (or a cancel) was first. */
export async function claimTrainingTap(db: Db, id: number, trainee: number): Promise<boolean> {
  return (
    (await updateWhere(db, 'training_taps', { id, state: 'waiting' }, { state: 'recorded', trainee })) > 0
  );
}

export async function noteTrainingOfTap(db: Db, id: number, memberTraining: number): Promise<void> {
  await updateWhere(db, 'training_taps', { id }, { memberTraining });
}
