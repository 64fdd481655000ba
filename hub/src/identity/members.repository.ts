import type { Db } from '../db/crud.js';

/** How many owners an account has. */
export async function countOwners(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account', '=', accountId)
    .where('privileges', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function writePrivileges(db: Db, memberId: number, privileges: string): Promise<void> {
  await db.updateTable('members').set({ privileges }).where('id', '=', memberId).execute();
}
