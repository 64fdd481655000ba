import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { bool } from '../db/crud.js';
import type { AccountsTable } from '../db/schema.js';
import type { Caller } from './caller.js';

export function accountRecord(row: Selectable<AccountsTable>) {
  return {
    id: row.id,
    name: row.name,
    locale: row.locale,
    trialEndDate: row.trialEndDate,
    billingEmailAddress: row.billingEmailAddress,
    billingCompany: row.billingCompany,
    inviteMembers: bool(row.inviteMembers),
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** Accounts the caller sees: their own, or every account for superusers. */
export function visibleAccounts(db: Db, caller: Caller) {
  const query = db.selectFrom('accounts');
  return caller.superuser ? query : query.where('id', '=', caller.accountId);
}
