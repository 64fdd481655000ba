import type { Insertable } from 'kysely';
import { type Db, insertReturning } from '../db/crud.js';
import type { ApiKeysTable } from '../db/schema.js';

export function insertApiKeyRow(db: Db, values: Insertable<ApiKeysTable>) {
  return insertReturning(db, 'api_keys', values);
}

/** The key of a token hash with what its caller needs of the member. */
export function apiKeyCaller(db: Db, tokenHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('members', 'members.id', 'api_keys.member')
    .select([
      'api_keys.id as apiKeyId',
      'api_keys.tokenHash as tokenHash',
      'members.id as memberId',
      'members.account as accountId',
      'members.space as spaceId',
      'members.privileges as privileges',
      'members.superuser as superuser',
      'members.state as state',
    ])
    .where('api_keys.tokenHash', '=', tokenHash)
    .executeTakeFirst();
}
