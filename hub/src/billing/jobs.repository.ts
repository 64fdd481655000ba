import type { Insertable, Updateable } from 'kysely';
import { type Db, insertReturning, selectFirstWhere, selectWhere, updateWhere } from '../db/crud.js';
import type { JobsTable } from '../db/schema.js';

/** The `jobs` table: the hub's background work. Functions take the database first. */

export function insertJob(db: Db, values: Insertable<JobsTable>) {
  return insertReturning(db, 'jobs', values);
}

export function jobsInState(db: Db, state: string) {
  return selectWhere(db, 'jobs', { state });
}

/** Writes a job's columns; with `whileState`, only while the job is in that state. */
export async function updateJob(
  db: Db,
  id: number,
  changes: Updateable<JobsTable>,
  whileState?: string,
): Promise<void> {
  await updateWhere(db, 'jobs', { id, state: whileState }, changes);
}

/** A job of the type made for the account after `since`, if any. */
export function recentJob(db: Db, accountId: number, type: string, since: string) {
  const where = { account: accountId, type, createdAt: { '>': since } };
  return selectFirstWhere(db, 'jobs', where, { columns: ['id'] });
}

/** Up to `limit` queued jobs due at `now`, oldest first. */
export function dueJobs(db: Db, now: string, limit: number) {
  const where = { state: 'queued', runAfter: { '<=': now } };
  return selectWhere(db, 'jobs', where, { orderBy: ['id'], limit });
}

/**
 * Claims a queued job (queued -> running, one more attempt) by a conditional update, so that of
 * several hubs on one database only one runs it. True when this call claimed it.
 */
export async function claimJob(db: Db, id: number, at: string): Promise<boolean> {
  const claimed = await updateWhere(db, 'jobs', { id, state: 'queued' }, (eb) => ({
    state: 'running',
    startedAt: at,
    updatedAt: at,
    attempts: eb('attempts', '+', 1),
    progress: 0,
  }));
  return claimed === 1;
}
