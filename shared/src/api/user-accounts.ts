import { z } from 'zod';
import { Id } from './common.js';
import { MemberPrivileges } from '../enums.js';

/**
 * `POST /user/accounts`: the accounts a signed-in person can switch to. A person is an e-mail
 * address; each account has its own member record for it. The password proves which of those
 * records are the caller's (an admin of one account can give a member any address, so the
 * address alone proves nothing).
 */
export const UserAccountsLookup = z.strictObject({
  password: z.string().min(1).max(1000).describe('The password of the member records to list'),
});

export const UserAccount = z.object({
  account: Id,
  accountName: z.string(),
  member: Id.describe('The member record of this person in that account'),
  privileges: MemberPrivileges,
  current: z.boolean().describe('The account of the caller'),
});
export type UserAccount = z.infer<typeof UserAccount>;

/** `GET /user/other-accounts`: whether switching accounts is worth offering (no names, no ids). */
export const OtherAccounts = z.object({
  count: z
    .number()
    .int()
    .describe(
      "Member records with the caller's e-mail address in other accounts that may sign in with a password",
    ),
});
export type OtherAccounts = z.infer<typeof OtherAccounts>;
