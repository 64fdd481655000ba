import type { Selectable } from 'kysely';
import { type Db, insertReturning } from '../db/crud.js';
import { recordOf, visibleRow } from '../db/records.js';
import type { ApiKeysTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { ofCallersAccount } from './records.repository.js';
import { hashToken, newToken, type TokenBox } from '../secrets.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export function apiKeyRecord(row: ApiKeyRow) {
  return recordOf(row, ['id', 'account', 'member', 'label']);
}

/** Keys the caller sees: admins those of their account, members their own. */
export function visibleApiKeys(db: Db, caller: Caller) {
  const query = ofCallersAccount(db, 'api_keys', caller);
  return isAdmin(caller) ? query : query.where('member', '=', caller.memberId);
}

export async function findApiKey(db: Db, caller: Caller, id: number): Promise<ApiKeyRow> {
  return visibleRow(visibleApiKeys(db, caller), 'api_keys', id, 'API key');
}

/** Creates a key for a member; the token is stored only hashed (look-up) and sealed (read-back). */
export async function insertApiKey(
  db: Db,
  box: TokenBox,
  values: { account: number; member: number; label: string | null; createdBy: number | null },
  at: string,
): Promise<{ row: ApiKeyRow; token: string }> {
  const token = newToken();
  const { createdBy, ...key } = values;
  const row = await insertReturning(db, 'api_keys', {
    ...key,
    tokenHash: hashToken(token),
    tokenEncrypted: box.seal(token),
    createdAt: at,
    updatedAt: at,
    updatedBy: createdBy,
  });
  return { row, token };
}
