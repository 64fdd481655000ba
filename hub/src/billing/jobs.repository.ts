import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../db/crud.js';
import type { JobsTable } from '../db/schema.js';

/** The `jobs` table: the hub's background work. Functions take the database first. */

export function insertJob(db: Db, values: Insertable<JobsTable>) {
  return db.insertInto('jobs').values(values).returningAll().executeTakeFirstOrThrow();
}

export function jobsInState(db: Db, state: string) {
  return db.selectFrom('jobs').selectAll().where('state', '=', state).execute();
}

/** Writes a job's columns; with `whileState`, only while the job is in that state. */
export async function updateJob(
  db: Db,
  id: number,
  changes: Updateable<JobsTable>,
  whileState?: string,
): Promise<void> {
  let query = db.updateTable('jobs').set(changes).where('id', '=', id);
  if (whileState !== undefined) query = query.where('state', '=', whileState);
  await query.execute();
}

/** A job of the type made for the account after `since`, if any. */
export function recentJob(db: Db, accountId: number, type: string, since: string) {
  return db
    .selectFrom('jobs')
    .select('id')
    .where('account', '=', accountId)
    .where('type', '=', type)
    .where('createdAt', '>', since)
    .executeTakeFirst();
}

/** Up to `limit` queued jobs due at `now`, oldest first. */
export function dueJobs(db: Db, now: string, limit: number) {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('state', '=', 'queued')
    .where('runAfter', '<=', now)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Claims a queued job (queued -> running, one more attempt) by a conditional update, so that of
 * several hubs on one database only one runs it. True when this call claimed it.
 */
export async function claimJob(db: Db, id: number, at: string): Promise<boolean> {
  const claimed = await db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      startedAt: at,
      updatedAt: at,
      attempts: eb('attempts', '+', 1),
      progress: 0,
    }))
    .where('id', '=', id)
    .where('state', '=', 'queued')
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
