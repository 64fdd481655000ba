import type { ResourceTypeMaintainerRecord } from '@makerspace/shared';
import { type Db, firstWhere } from '../db/crud.js';
import { conflict, notFound, unprocessable } from '../errors.js';
import { memberById } from '../identity/members.repository.js';
import { type Caller, seesAccount } from '../kernel/caller.js';
import { deleteMaintainer, insertMaintainer, maintainer, maintainersOfType } from './problems.repository.js';

/**
 * Maintainers (docs/DECISIONS.md, "Problem reports"): an admin makes a member maintainer of a
 * resource type, as trainers are made for courses. A maintainer sees the account's problem
 * reports and resolves those of the resources of the types they maintain, and is who
 * `problemReportRecipients` names for a new report.
 */

/** The resource type the caller sees (its account), or 404. */
async function visibleType(db: Db, caller: Caller, typeId: number) {
  const type = await firstWhere(db, 'resource_types', { id: typeId });
  if (!type || !seesAccount(caller, type.account)) throw notFound('Resource type');
  return type;
}

function maintainerRecord(row: {
  type: number;
  member: number;
  createdAt: string;
  createdBy: number | null;
  firstName: string;
  lastName: string | null;
}): ResourceTypeMaintainerRecord {
  return {
    resourceType: row.type,
    member: row.member,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    _embedded: { member: { id: row.member, firstName: row.firstName, lastName: row.lastName ?? null } },
  };
}

/** GET /resource-types/{id}/maintainers: every member of the account may see who looks after a type. */
export async function typeMaintainers(db: Db, caller: Caller, typeId: number) {
  const type = await visibleType(db, caller, typeId);
  return (await maintainersOfType(db, type.id)).map(maintainerRecord);
}

/** POST /resource-types/{id}/maintainers (admins). */
export async function addTypeMaintainer(
  db: Db,
  caller: Caller,
  typeId: number,
  memberId: number,
  at: string,
) {
  const type = await visibleType(db, caller, typeId);
  const member = await memberById(db, memberId);
  if (!member || member.account !== type.account) {
    throw unprocessable(`Member ${memberId} does not exist in this account`, { unknownMember: true });
  }
  if (await maintainer(db, type.id, member.id)) {
    throw conflict('This member already maintains this resource type', { alreadyMaintainer: true });
  }
  const row = await insertMaintainer(db, {
    type: type.id,
    member: member.id,
    account: type.account,
    createdAt: at,
    createdBy: caller.memberId || null,
  });
  return maintainerRecord({ ...row, firstName: member.firstName, lastName: member.lastName });
}

/** DELETE /resource-types/{id}/maintainers/{memberId} (admins). Reports they resolved stay so. */
export async function removeTypeMaintainer(db: Db, caller: Caller, typeId: number, memberId: number) {
  const type = await visibleType(db, caller, typeId);
  if (!(await deleteMaintainer(db, type.id, memberId))) throw notFound('Maintainer');
}
