import type { Insertable } from 'kysely';
import { type Db, firstWhere } from '../db/crud.js';
import type { KeyAssignmentsTable, MemberKeysTable } from '../db/schema.js';

// ---- member keys ----

export function keyOfMember(db: Db, memberId: number) {
  return db.selectFrom('member_keys').selectAll().where('member', '=', memberId).executeTakeFirst();
}

/** The keys of these members (one each at most). */
export function keysOfMembers(db: Db, memberIds: number[]) {
  return db.selectFrom('member_keys').selectAll().where('member', 'in', memberIds).execute();
}

/** The member of the account who holds this token, if any. */
export function holderOfToken(db: Db, account: number, token: string) {
  return firstWhere(db, 'member_keys', { account, token }, ['member']);
}

/** Rewrites a key (lockVersion + 1); answers the stored row. */
export function updateMemberKey(
  db: Db,
  id: number,
  key: { type: string; token: string; state: string | undefined },
  stamp: { at: string; by: number | null },
) {
  return db
    .updateTable('member_keys')
    .set((eb) => ({
      type: key.type,
      token: key.token,
      state: key.state,
      lockVersion: eb('lockVersion', '+', 1),
      updatedAt: stamp.at,
      updatedBy: stamp.by,
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function insertMemberKey(db: Db, values: Insertable<MemberKeysTable>) {
  return db.insertInto('member_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Deletes a key; false when it was gone already. */
export async function deleteMemberKeyRow(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('member_keys').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The key of this card (type and upper-case token) in the account. */
export function keyOfCard(db: Db, account: number, card: { type: string; token: string }) {
  return firstWhere(db, 'member_keys', { account, type: card.type, token: card.token });
}

// ---- key assignments ----

export function insertKeyAssignment(db: Db, values: Insertable<KeyAssignmentsTable>) {
  return db.insertInto('key_assignments').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function restartKeyAssignment(
  db: Db,
  id: number,
  resource: number,
  expiresAt: string,
): Promise<void> {
  await db
    .updateTable('key_assignments')
    .set({ resource, state: 'pending', expiresAt })
    .where('id', '=', id)
    .execute();
}

/** Pending assignments at this resource that have not expired at `at`, newest first. */
export function pendingAssignmentsAt(db: Db, resource: number, at: string) {
  return db
    .selectFrom('key_assignments')
    .selectAll()
    .where('resource', '=', resource)
    .where('state', '=', 'pending')
    .where('expiresAt', '>', at)
    .orderBy('id', 'desc')
    .execute();
}

/** Marks a still pending assignment assigned to the card; undefined when another tap won. */
export function assignPending(db: Db, id: number, card: { type: string; token: string }, at: string) {
  return db
    .updateTable('key_assignments')
    .set({ state: 'assigned', keyType: card.type, keyToken: card.token, assignedAt: at })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}
