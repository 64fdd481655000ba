import type { Selectable } from 'kysely';
import { bool } from '../db/crud.js';
import type { AccountsTable } from '../db/schema.js';

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

export { visibleAccounts } from './accounts.repository.js';
