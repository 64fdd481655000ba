import type { Insertable } from 'kysely';
import {
  type Db,
  deleteWhere,
  firstWhere,
  insertReturning,
  selectWhere,
  updateReturning,
  updateWhere,
} from '../db/crud.js';
import type { KeyAssignmentsTable, MemberKeysTable } from '../db/schema.js';

// ---- member keys ----

export function keyOfMember(db: Db, memberId: number) {
  return firstWhere(db, 'member_keys', { member: memberId });
}

/** The keys of these members (one each at most). */
export function keysOfMembers(db: Db, memberIds: number[]) {
  return selectWhere(db, 'member_keys', { member: memberIds });
}

/** The member of the account who holds this token, if any. */
export function holderOfToken(db: Db, account: number, token: string) {
  return firstWhere(db, 'member_keys', { account, token }, ['member']);
}

/** Rewrites a key (lockVersion + 1); answers the stored row. */
export async function updateMemberKey(
  db: Db,
  id: number,
  key: { type: string; token: string; state: string | undefined },
  stamp: { at: string; by: number | null },
) {
  const [row] = await updateReturning(db, 'member_keys', { id }, (eb) => ({
    type: key.type,
    token: key.token,
    state: key.state,
    lockVersion: eb('lockVersion', '+', 1),
    updatedAt: stamp.at,
    updatedBy: stamp.by,
  }));
  if (!row) throw new Error(`No member key ${id}`);
  return row;
}

export function insertMemberKey(db: Db, values: Insertable<MemberKeysTable>) {
  return insertReturning(db, 'member_keys', values);
}

/** Deletes a key; false when it was gone already. */
export async function deleteMemberKeyRow(db: Db, id: number): Promise<boolean> {
  return (await deleteWhere(db, 'member_keys', { id })) > 0;
}

/** The key of this card (type and upper-case token) in the account. */
export function keyOfCard(db: Db, account: number, card: { type: string; token: string }) {
  return firstWhere(db, 'member_keys', { account, type: card.type, token: card.token });
}

// ---- key assignments ----

export function insertKeyAssignment(db: Db, values: Insertable<KeyAssignmentsTable>) {
  return insertReturning(db, 'key_assignments', values);
}

export async function restartKeyAssignment(
  db: Db,
  id: number,
  resource: number,
  expiresAt: string,
): Promise<void> {
  await updateWhere(db, 'key_assignments', { id }, { resource, state: 'pending', expiresAt });
}

/** Pending assignments at this resource that have not expired at `at`, newest first. */
export function pendingAssignmentsAt(db: Db, resource: number, at: string) {
  const where = { resource, state: 'pending', expiresAt: { '>': at } };
  return selectWhere(db, 'key_assignments', where, { orderBy: ['id desc'] });
}

/** Marks a still pending assignment assigned to the card; undefined when another tap won. */
export async function assignPending(db: Db, id: number, card: { type: string; token: string }, at: string) {
  const assigned = { state: 'assigned', keyType: card.type, keyToken: card.token, assignedAt: at };
  const [row] = await updateReturning(db, 'key_assignments', { id, state: 'pending' }, assigned);
  return row;
}
