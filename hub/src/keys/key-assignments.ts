import type { KeyAssignmentRecord, KeyType } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { inAccount } from '../db/records.js';
import type { KeyAssignmentsTable } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';
import { unprocessable } from '../errors.js';
import { findMember } from '../identity/members.js';
import {
  assignPending,
  insertKeyAssignment,
  pendingAssignmentsAt,
  restartKeyAssignment,
} from './keys.repository.js';

export type KeyAssignmentRow = Selectable<KeyAssignmentsTable>;

/** How long an assignment waits for a card (spec 4.3: "the next ~15 seconds"). */
export const ASSIGNMENT_WINDOW_MS = 15_000;

export function keyAssignmentRecord(row: KeyAssignmentRow, at: Date): KeyAssignmentRecord {
  const state =
    row.state === 'assigned' ? 'assigned' : row.expiresAt <= at.toISOString() ? 'expired' : 'pending';
  return {
    id: row.id,
    account: row.account,
    member: row.member,
    resource: row.resource,
    state,
    expiresAt: row.expiresAt,
    key: row.keyType && row.keyToken ? { type: row.keyType as KeyType, token: row.keyToken } : null,
    assignedAt: row.assignedAt,
    createdAt: row.createdAt,
  };
}

/** The resource must be one of the member's account; a missing one is 422, like other references. */
export async function checkResource(db: Db, account: number, resource: number | null | undefined) {
  if (resource === null || resource === undefined) return;
  if (!(await inAccount(db, 'resources', resource, account)))
    throw unprocessable('No such resource in this account', { unknownResource: true });
}

const windowEnd = (at: Date) => new Date(at.getTime() + ASSIGNMENT_WINDOW_MS).toISOString();

/** Starts an assignment for a member the caller sees (404 otherwise) at a resource of their account. */
export async function startKeyAssignment(
  db: Db,
  caller: Caller,
  body: { member: number; resource?: number | null },
  at: Date,
): Promise<KeyAssignmentRow> {
  const member = await findMember(db, caller, body.member);
  const resource = body.resource ?? null;
  await checkResource(db, member.account, resource);
  return insertKeyAssignment(db, {
    account: member.account,
    member: member.id,
    resource,
    createdBy: caller.memberId,
    state: 'pending',
    expiresAt: windowEnd(at),
    createdAt: at.toISOString(),
  });
}

/** Fabman's second step names the resource; the window starts again, as the member walks to the reader now. */
export async function setAssignmentResource(
  db: Db,
  row: KeyAssignmentRow,
  resource: number,
  at: Date,
): Promise<void> {
  await checkResource(db, row.account, resource);
  if (row.state === 'assigned') {
    throw unprocessable('This key assignment is finished already', { assignmentFinished: true });
  }
  await restartKeyAssignment(db, row.id, resource, windowEnd(at));
}

/**
 * Claims the newest pending assignment waiting at this resource for the tapped card. The
 * conditional update makes exactly one tap win, also across hub processes.
 */
export async function claimAssignment(
  db: Db,
  resource: number,
  card: { type: string; token: string },
  at: Date,
): Promise<KeyAssignmentRow | undefined> {
  const candidates = await pendingAssignmentsAt(db, resource, at.toISOString());
  for (const candidate of candidates) {
    const claimed = await assignPending(db, candidate.id, card, at.toISOString());
    if (claimed) return claimed;
  }
  return undefined;
}
