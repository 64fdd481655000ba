import type { Db } from '../db/crud.js';
import { jsonText } from '../db/crud.js';
import { inAccount } from '../db/records.js';
import { conflict, unprocessable } from '../errors.js';
import type { Caller } from '../kernel/caller.js';
import { emitResourceLog, insertLog, type ResourceLogRow, resourceLogRecord } from './resource-logs.js';
import { findResource } from './resources.js';
import { memberRefs, newestAllowedLog } from './resource-logs.repository.js';
import { setLastUsedLog } from './sessions.repository.js';

/*
 * Resource logs as admins write them through the API (POST, PUT, DELETE /resource-logs): usage no
 * bridge reported, and corrections. Bridges, switch-on and card taps write through resource-logs.ts.
 */

/** The type of a log an admin records without one: usage (Fabman's default). */
export const defaultLogType = 'allowed';

/** A member of the log's account, or 422. */
async function checkMember(db: Db, account: number, member: number | null | undefined) {
  if (member === null || member === undefined || (await inAccount(db, 'members', member, account))) return;
  throw unprocessable(`Member ${member} does not exist in this account`, { unknownMember: true });
}

const iso = (at: string | null | undefined) => (at ? new Date(at).toISOString() : at);

function checkRange(createdAt: string, stoppedAt: string | null) {
  if (stoppedAt !== null && stoppedAt < createdAt)
    throw unprocessable('stoppedAt must not be before createdAt', { invalidRange: true });
}

export interface LogInput {
  resource: number;
  type?: ResourceLogRow['type'];
  member?: number | null;
  createdAt?: string;
  stoppedAt?: string | null;
  stopType?: string | null;
  reason?: string | null;
  notes?: string | null;
  metadata?: Record<string, unknown> | null;
  idleDurationSeconds?: number | null;
}

/** `POST /resource-logs`: a log of a resource the caller sees, with resourceLog_created. */
export async function createManualLog(trx: Db, caller: Caller, body: LogInput, at: string) {
  const resource = await findResource(trx, caller, body.resource);
  await checkMember(trx, resource.account, body.member);
  const createdAt = iso(body.createdAt) ?? at;
  const stoppedAt = iso(body.stoppedAt) ?? null;
  checkRange(createdAt, stoppedAt);
  return insertLog(
    trx,
    {
      account: resource.account,
      resource: resource.id,
      type: (body.type ?? defaultLogType) as never,
      member: body.member ?? null,
      createdAt,
      stoppedAt,
      stopType: (body.stopType ?? null) as never,
      reason: (body.reason ?? null) as never,
      notes: body.notes ?? null,
      metadata: body.metadata ?? null,
      idleDurationSeconds: body.idleDurationSeconds ?? null,
      updatedAt: at,
      updatedBy: caller.memberId,
    },
    { resource },
  );
}

/** The columns a correction writes; `originalMember` keeps who the log was first recorded for. */
export async function logChanges(trx: Db, row: ResourceLogRow, body: Omit<Partial<LogInput>, 'resource'>) {
  await checkMember(trx, row.account, body.member);
  const createdAt = iso(body.createdAt);
  const stoppedAt = iso(body.stoppedAt);
  checkRange(createdAt ?? row.createdAt, stoppedAt === undefined ? row.stoppedAt : stoppedAt);
  const values: Record<string, unknown> = { createdAt, stoppedAt, metadata: jsonText(body.metadata) };
  for (const key of ['type', 'member', 'stopType', 'reason', 'notes', 'idleDurationSeconds'] as const)
    values[key] = body[key];
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

/** After a correction: the resource's last use follows its allowed logs; resourceLog_updated goes out. */
export async function logChanged(trx: Db, after: ResourceLogRow) {
  await refreshLastUsed(trx, after.resource);
  await emitResourceLog(trx, 'resourceLog_updated', after);
}

/**
 * Before a log is deleted: a session still running stays (its bridge will stop it: 409); else
 * resourceLog_deleted goes out with the log as it was.
 */
export function logRemoved(trx: Db, row: ResourceLogRow) {
  if (row.type === 'allowed' && row.stoppedAt === null)
    throw conflict('The session of this log is still running; stop it (or correct stoppedAt) first', {
      runningSession: true,
    });
  return emitResourceLog(trx, 'resourceLog_deleted', row);
}

/** The resource's last use: its newest allowed log (after a log was changed or deleted). */
export async function refreshLastUsed(trx: Db, resource: number) {
  await setLastUsedLog(trx, resource, (await newestAllowedLog(trx, resource)) ?? null);
}

/** Log records a page at a time; `resolveMember` replaces the member id by {id, memberNumber, firstName, lastName, state}. */
export async function logRecords(db: Db, rows: ResourceLogRow[], resolveMember: boolean) {
  const out = rows.map(resourceLogRecord);
  if (!resolveMember) return out;
  const ids = [...new Set(rows.map((r) => r.member).filter((m): m is number => m !== null))];
  const members = ids.length ? await memberRefs(db, ids) : [];
  const byId = new Map(members.map((m) => [m.id, m]));
  return out.map((r) => ({
    ...r,
    member: typeof r.member === 'number' ? (byId.get(r.member) ?? r.member) : r.member,
  }));
}
