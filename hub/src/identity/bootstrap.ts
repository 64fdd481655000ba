import { systemClock } from '../context.js';
import type { Db } from '../db/crud.js';
import type { TokenBox } from '../secrets.js';
import { insertAccount, insertFirstSpace } from './accounts.repository.js';
import { insertApiKey } from './api-keys.js';
import { insertMember } from './members.repository.js';

export interface NewAccount {
  accountName: string;
  emailAddress: string;
  firstName?: string;
  lastName?: string;
  spaceName?: string;
  timezone?: string;
  superuser?: boolean;
}

export interface CreatedAccount {
  accountId: number;
  spaceId: number;
  memberId: number;
  apiKeyId: number;
  token: string;
}

/**
 * Creates an account with its first space, an owner member and an API key, in one transaction,
 * all stamped `at` (the hub's clock where the caller has one; the CLI has no hub context and
 * takes the system time once).
 */
export async function createAccountWithOwner(
  db: Db,
  box: TokenBox,
  input: NewAccount,
  at: string = systemClock.now().toISOString(),
): Promise<CreatedAccount> {
  return db.transaction().execute(async (trx) => {
    const stamps = { createdAt: at, updatedAt: at, updatedBy: null };
    const account = await insertAccount(trx, {
      name: input.accountName,
      billingEmailAddress: input.emailAddress,
      ...stamps,
    } as any);
    const space = await insertFirstSpace(trx, {
      account: account.id,
      name: input.spaceName ?? input.accountName,
      timezone: input.timezone ?? 'UTC',
      ...stamps,
    } as any);
    const member = await insertMember(trx, {
      account: account.id,
      space: space.id,
      firstName: input.firstName ?? 'Owner',
      lastName: input.lastName ?? '',
      emailAddress: input.emailAddress,
      emailKey: input.emailAddress.toLowerCase(),
      privileges: 'owner',
      superuser: input.superuser ? 1 : 0,
      ...stamps,
    } as any);
    const { row, token } = await insertApiKey(
      trx,
      box,
      {
        account: account.id,
        member: member.id,
        label: 'Created at set-up',
        createdBy: null,
      },
      at,
    );
    return { accountId: account.id, spaceId: space.id, memberId: member.id, apiKeyId: row.id, token };
  });
}
