import type { KeyType, MemberKeyPut, MemberKeyRecord } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import { type Db, isUniqueViolation } from '../db/crud.js';
import { recordEvents, recordOf, rowById } from '../db/records.js';
import type { MemberKeysTable } from '../db/schema.js';
import { badRequest, unprocessable } from '../errors.js';
import { type MemberRow, memberRecord } from '../identity/members.js';
import {
  deleteMemberKeyRow,
  holderOfToken,
  insertMemberKey,
  keyOfCard,
  keyOfMember,
  updateMemberKey,
} from './keys.repository.js';

export type MemberKeyRow = Selectable<MemberKeysTable>;

export function memberKeyRecord(row: MemberKeyRow): MemberKeyRecord {
  // The type and state columns hold only the record's values (the API writes them).
  return recordOf(row, ['member', 'type', 'token', 'state']) as MemberKeyRecord;
}

export { keyOfMember } from './keys.repository.js';

const duplicateKey = () =>
  unprocessable('This key card belongs to another member of the account', { duplicateKey: true });

/**
 * Creates or replaces the member's key (one per member), stamped `at`. Without `type` the key
 * keeps its type (400 when the member has no key yet). A token another member of the account
 * holds is 422 `duplicateKey`, checked first and again by the unique index under races.
 */
export async function putMemberKey(
  db: Db,
  member: Pick<MemberRow, 'id' | 'account'>,
  change: Omit<MemberKeyPut, 'type'> & { type?: KeyType },
  updatedBy: number | null,
  at: string,
): Promise<{ row: MemberKeyRow; created: boolean }> {
  const current = await keyOfMember(db, member.id);
  const type = change.type ?? (current?.type as KeyType | undefined);
  if (type === undefined) {
    throw badRequest('body.type: required for a member without a key', {
      validation: [{ path: 'type', message: 'Required for a member without a key' }],
    });
  }
  const key = { ...change, type };
  const holder = await holderOfToken(db, member.account, key.token);
  if (holder && holder.member !== member.id) throw duplicateKey();
  try {
    const existing = current;
    if (existing) {
      const row = await updateMemberKey(db, existing.id, key, { at, by: updatedBy });
      await emitMemberKey(db, 'memberKey_updated', row);
      return { row, created: false };
    }
    const row = await insertMemberKey(db, {
      account: member.account,
      member: member.id,
      type: key.type,
      token: key.token,
      state: key.state,
      createdAt: at,
      updatedAt: at,
      updatedBy,
    });
    await emitMemberKey(db, 'memberKey_created', row);
    return { row, created: true };
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateKey();
    throw err;
  }
}

export async function deleteMemberKey(db: Db, memberId: number): Promise<boolean> {
  const row = await keyOfMember(db, memberId);
  if (!row) return false;
  await emitMemberKey(db, 'memberKey_deleted', row);
  return deleteMemberKeyRow(db, row.id);
}

/** memberKey_created/updated/deleted `{key, member}`, in the change's transaction. */
export const emitMemberKey = recordEvents<MemberKeyRow, 'memberKey'>(async (db, row) => {
  const member = await rowById(db, 'members', row.member);
  return { key: memberKeyRecord(row), member: member ? memberRecord(member) : null };
});

/** The key (and its member) of a card tapped at a resource of this account; undefined for an unknown card. */
export async function keyByCard(
  db: Db,
  account: number,
  cards: readonly { type: string; token: string }[],
): Promise<MemberKeyRow | undefined> {
  for (const card of cards) {
    const row = await keyOfCard(db, account, { type: card.type, token: card.token.toUpperCase() });
    if (row) return row;
  }
  return undefined;
}
