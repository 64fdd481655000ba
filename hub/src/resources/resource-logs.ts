import type { DenyReason, ResourceLogType, StopType, WebhookEventType } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import { bool, type Db, jsonText, parseJson } from '../db/crud.js';
import type { ResourceLogsTable } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';
import { accountOrOwn } from '../db/records.js';
import { type MemberRow, memberEventRecord, memberRecord } from '../identity/members.js';
import { emitEvent } from '../db/outbox.js';
import { type ResourceRow, resourceEventRecord, resourceEventRecordById } from './resources.js';
import { insertLogRow, setLastUsedLog, updateLogRow } from './sessions.repository.js';

export type ResourceLogRow = Selectable<ResourceLogsTable>;

export { sessionKey } from './sessions.repository.js';

export function resourceLogRecord(row: ResourceLogRow) {
  return {
    id: row.id,
    account: row.account,
    resource: row.resource,
    type: row.type as ResourceLogType,
    member: row.member as number | null | { id: number },
    originalMember: row.originalMember,
    createdAt: row.createdAt,
    stoppedAt: row.stoppedAt,
    stopType: row.stopType as StopType | null,
    idleDurationSeconds: row.idleDurationSeconds,
    reason: row.reason as DenyReason | null,
    notes: row.notes,
    metadata: parseJson<Record<string, unknown>>(row.metadata),
    extraChargeDescription: row.extraChargeDescription,
    extraChargePrice: row.extraChargePrice,
    extraChargeTaxPercent: row.extraChargeTaxPercent,
    offline: bool(row.offline),
    lockVersion: row.lockVersion,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** Logs the caller sees: admins those of their account, members their own. */
export const visibleLogs = (db: Db, caller: Caller) => accountOrOwn(db, 'resource_logs', caller);

export interface NewLog {
  account: number;
  resource: number;
  type: ResourceLogType;
  member?: number | null;
  createdAt?: string;
  stoppedAt?: string | null;
  stopType?: StopType | null;
  reason?: DenyReason | null;
  notes?: string | null;
  metadata?: Record<string, unknown> | null;
  idleDurationSeconds?: number | null;
  clientId?: string | null;
  offline?: boolean;
  /** The hub's time of the write (the hub's clock). */
  updatedAt: string;
  updatedBy?: number | null;
}

/** Rows the caller already holds, so the webhook event needs no extra reads. */
export interface KnownRows {
  resource?: ResourceRow;
  member?: MemberRow | null;
}

/**
 * The writers below emit resourceLog_created/updated with `db`: pass the transaction of the
 * change so the event commits or rolls back with it.
 */
export async function insertLog(db: Db, log: NewLog, known: KnownRows = {}): Promise<ResourceLogRow> {
  const row = await insertLogOnce(db, log, known);
  if (!row) throw new Error(`a log with client id ${log.clientId} exists already`);
  return row;
}

/** Inserts a log; one whose client id is stored already is skipped (undefined), even under races. */
export async function insertLogOnce(
  db: Db,
  log: NewLog,
  known: KnownRows = {},
): Promise<ResourceLogRow | undefined> {
  const at = log.updatedAt;
  // Every switch-on, tap and ingested log comes through here: plain SQL, no query builder.
  const row = await insertLogRow(db, [
    log.account,
    log.resource,
    log.type,
    log.member ?? null,
    log.member ?? null,
    log.createdAt ?? at,
    log.stoppedAt ?? null,
    log.stopType ?? null,
    log.reason ?? null,
    log.notes ?? null,
    jsonText(log.metadata) ?? null,
    log.idleDurationSeconds ?? null,
    log.clientId ?? null,
    log.offline ? 1 : 0,
    at,
    log.updatedBy ?? null,
  ]);
  if (row && log.type === 'allowed') {
    await setLastUsedLog(db, log.resource, row.id);
  }
  if (row) await emitResourceLog(db, 'resourceLog_created', row, known);
  return row;
}

/** Changes a log's fields (e.g. an allowed log the bridge could not carry out becomes denied). */
export async function updateLog(
  db: Db,
  id: number,
  values: Partial<Pick<ResourceLogRow, 'type' | 'reason' | 'notes' | 'stoppedAt' | 'stopType'>> & {
    /** The hub's time of the change (the hub's clock). */
    at: string;
  },
  known: KnownRows = {},
): Promise<ResourceLogRow | undefined> {
  const { at, ...changes } = values;
  const row = await updateLogRow(db, id, { ...changes, updatedAt: at });
  if (row) await emitResourceLog(db, 'resourceLog_updated', row, known);
  return row;
}

/** Stops a running session log; a log that is already stopped stays as it is. Returns whether it stopped now. */
export async function stopLog(
  db: Db,
  id: number,
  values: {
    stoppedAt: string;
    stopType: StopType;
    idleDurationSeconds?: number | null;
    /** The member who stopped it (an admin's switch-off), when not the bridge. */
    updatedBy?: number;
    /** The hub's time of the change (the hub's clock). */
    at: string;
  },
  known: KnownRows = {},
): Promise<boolean> {
  const row = await updateLogRow(
    db,
    id,
    {
      stoppedAt: values.stoppedAt,
      stopType: values.stopType,
      idleDurationSeconds: values.idleDurationSeconds ?? null,
      ...(values.updatedBy === undefined ? {} : { updatedBy: values.updatedBy }),
      updatedAt: values.at,
    },
    true,
  );
  if (!row) return false;
  await emitResourceLog(db, 'resourceLog_updated', row, known);
  return true;
}

/** resourceLog_created/updated; pass the resource and member rows when the caller has them. */
export function emitResourceLog(
  db: Db,
  type: Extract<WebhookEventType, `resourceLog_${string}`>,
  log: ResourceLogRow,
  known: { resource?: ResourceRow; member?: MemberRow | null } = {},
) {
  return emitEvent(db, {
    account: log.account,
    type,
    details: async () => {
      const resource = known.resource ?? null;
      return {
        log: resourceLogRecord(log),
        resource: resource
          ? await resourceEventRecord(db, resource)
          : await resourceEventRecordById(db, log.resource),
        member:
          known.member !== undefined
            ? known.member && memberRecord(known.member)
            : await memberEventRecord(db, log.member),
      };
    },
  });
}
