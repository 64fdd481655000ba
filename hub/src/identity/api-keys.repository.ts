import type { Db } from '../db/crud.js';

/** What a caller is made of of its member (kernel/caller.ts): ids, space, privileges, superuser flag, state. */
const callerColumns = [
  'members.id as memberId',
  'members.account as accountId',
  'members.space as spaceId',
  'members.privileges',
  'members.superuser',
  'members.state',
] as const;

/** The key of a token hash with what its caller needs of the member. */
export function apiKeyCaller(db: Db, tokenHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('members', 'members.id', 'api_keys.member')
    .select(['api_keys.id as apiKeyId', 'api_keys.tokenHash'])
    .select(callerColumns)
    .where('api_keys.tokenHash', '=', tokenHash)
    .executeTakeFirst();
}
