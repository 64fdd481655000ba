import type { Db } from '../db/crud.js';

/*
 * The `access_attempts` table: wrong switch-on codes and unknown cards, counted against guessing
 * (the access rules read the wrong codes, access/core.rules.ts).
 */

export interface Attempt {
  resource: number;
  member: number | null;
  kind: 'wrongCode' | 'unknownKey';
  at: string;
}

export async function recordAttempt(db: Db, attempt: Attempt): Promise<void> {
  await db.insertInto('access_attempts').values(attempt).execute();
}

/** Unknown cards tapped at the resource after `since`. */
export async function unknownKeyAttempts(db: Db, resource: number, since: string): Promise<number> {
  const row = await db
    .selectFrom('access_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('resource', '=', resource)
    .where('kind', '=', 'unknownKey')
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
