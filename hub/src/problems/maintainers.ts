import type { ResourceTypeMaintainerRecord } from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import type { Caller } from '../kernel/caller.js';
import { addRoleHolder, type MemberRole, removeRoleHolder, roleHolders } from '../resources/member-roles.js';

/**
 * Maintainers (docs/DECISIONS.md, "Problem reports"): an admin makes a member maintainer of a
 * resource type, as trainers are made for courses. A maintainer sees the account's problem
 * reports and resolves those of the resources of the types they maintain, and is who
 * `problemReportRecipients` names for a new report.
 */

const maintainers: MemberRole<'resourceType', 'resource_type_maintainers'> = {
  table: 'resource_type_maintainers',
  subject: 'type',
  recordKey: 'resourceType',
  subjectTable: 'resource_types',
  subjectName: 'Resource type',
  alreadyHeld: {
    message: 'This member already maintains this resource type',
    data: { alreadyMaintainer: true },
  },
  holderName: 'Maintainer',
};

/** GET /resource-types/{id}/maintainers: every member of the account may see who looks after a type. */
export function typeMaintainers(
  db: Db,
  caller: Caller,
  typeId: number,
): Promise<ResourceTypeMaintainerRecord[]> {
  return roleHolders(db, caller, maintainers, typeId);
}

/** POST /resource-types/{id}/maintainers (admins). */
export function addTypeMaintainer(
  db: Db,
  caller: Caller,
  typeId: number,
  memberId: number,
  at: string,
): Promise<ResourceTypeMaintainerRecord> {
  return addRoleHolder(db, caller, maintainers, typeId, memberId, at);
}

/** DELETE /resource-types/{id}/maintainers/{memberId} (admins). Reports they resolved stay so. */
export function removeTypeMaintainer(db: Db, caller: Caller, typeId: number, memberId: number) {
  return removeRoleHolder(db, caller, maintainers, typeId, memberId);
}
