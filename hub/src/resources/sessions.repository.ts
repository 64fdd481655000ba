import type { Selectable, Updateable } from 'kysely';
import { type Db, firstWhere, qualified, updateWhere } from '../db/crud.js';
import type { FastReads } from '../db/fast-reads.js';
import { rawRows } from '../db/fast-reads.js';
import type { MembersTable, ResourceLogsTable, ResourcesTable } from '../db/schema.js';

/*
 * The queries of a session's life: what a switch-on and a card tap read, the log they write, the
 * pending record of a switch-on sent to a bridge, and the lookups and stops of running sessions.
 * Every switch-on runs through here: its statements are plain SQL on the fast reads.
 */

/** What a switch-on reads first: the resource and the member (committed data, no query builder). */
export function switchOnRows(reads: FastReads, resourceId: number, memberId: number) {
  return Promise.all([
    reads.first<Selectable<ResourcesTable>>('select * from "resources" where "id" = ?', [resourceId]),
    reads.first<Selectable<MembersTable>>('select * from "members" where "id" = ?', [memberId]),
  ]);
}

/**
 * The time of the member's `nth` newest wrong code at the resource after `since` (the lock-out
 * lifts when it leaves the window); undefined when there are fewer.
 */
export async function nthWrongCodeAt(
  reads: FastReads,
  resource: number,
  member: number,
  since: string,
  nth: number,
): Promise<string | undefined> {
  const row = await reads.first<{ at: string }>(
    `select "at" from "access_attempts" where "resource" = ? and "member" = ? and "kind" = 'wrongCode' and "at" > ? order by "at" desc limit 1 offset ${nth - 1}`,
    [resource, member, since],
  );
  return row?.at;
}

/*
 * The `access_attempts` table: wrong switch-on codes and unknown cards, counted against guessing
 * (the access rules read the wrong codes, access/core.rules.ts).
 */

export interface Attempt {
  resource: number;
  member: number | null;
  kind: 'wrongCode' | 'unknownKey';
  at: string;
}

export async function recordAttempt(db: Db, attempt: Attempt): Promise<void> {
  await db.insertInto('access_attempts').values(attempt).execute();
}

/** Unknown cards tapped at the resource after `since`. */
export async function unknownKeyAttempts(db: Db, resource: number, since: string): Promise<number> {
  const row = await db
    .selectFrom('access_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('resource', '=', resource)
    .where('kind', '=', 'unknownKey')
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A bridge as a switch-on checks it: its `offline` flag and the inputs its agent last reported. */
export interface BridgeInputsRow {
  inputs: string | null;
  offline: number;
}

/** The resource's bridge (undefined without one): its inputs message (JSON) and `offline` flag. */
export function bridgeInputsRow(reads: FastReads, resourceId: number): Promise<BridgeInputsRow | undefined> {
  return reads.first<BridgeInputsRow>('select "inputs", "offline" from "bridges" where "resource" = ?', [
    resourceId,
  ]);
}

/** The bridge's `offline` flag (why a switch-on cannot reach it); undefined without a bridge. */
export async function bridgeOfflineFlag(reads: FastReads, resourceId: number): Promise<number | undefined> {
  const row = await bridgeInputsRow(reads, resourceId);
  return row === undefined ? undefined : Number(row.offline);
}

/** Is this the hash of a code the resource had before (an old sticker)? */
export async function isRetiredCode(reads: FastReads, resource: number, codeHash: string): Promise<boolean> {
  const row = await reads.first<{ id: number }>(
    'select "id" from "retired_switch_on_codes" where "resource" = ? and "codeHash" = ?',
    [resource, codeHash],
  );
  return row !== undefined;
}

type LogRow = Selectable<ResourceLogsTable>;

/**
 * The column a session id names: the hub's log id (digits), or the client id of a log the agent
 * made itself (offline).
 */
export function sessionKey(sessionId: string): { column: 'id' | 'clientId'; value: number | string } {
  return /^[1-9][0-9]{0,15}$/.test(sessionId)
    ? { column: 'id', value: Number(sessionId) }
    : { column: 'clientId', value: sessionId };
}

const INSERT_LOG =
  'insert into "resource_logs" ("account", "resource", "type", "member", "originalMember", "createdAt", "stoppedAt", "stopType", "reason", "notes", "metadata", "idleDurationSeconds", "clientId", "offline", "updatedAt", "updatedBy") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("clientId") do nothing returning *';

/**
 * Inserts a log (its values in the columns' order of INSERT_LOG, the member twice); one whose
 * client id is stored already is skipped (undefined). Plain SQL: every switch-on and tap comes here.
 */
export async function insertLogRow(db: Db, values: readonly unknown[]): Promise<LogRow | undefined> {
  const [row] = await rawRows<LogRow>(db, INSERT_LOG, values);
  return row;
}

/** The resource's last use: its newest allowed log (plain SQL: every switch-on writes it). */
export async function setLastUsedLog(db: Db, resource: number, log: number | null): Promise<void> {
  await rawRows(db, 'update "resources" set "lastUsedLog" = ? where "id" = ?', [log, resource]);
}

/** Changes a log's columns and counts its version up; `running`: only while the session runs. */
export function updateLogRow(
  db: Db,
  id: number,
  changes: Updateable<ResourceLogsTable>,
  running = false,
): Promise<LogRow | undefined> {
  const update = db
    .updateTable('resource_logs')
    .set({ ...changes, lockVersion: (eb) => eb('lockVersion', '+', 1) })
    .where('id', '=', id);
  return (running ? update.where('stoppedAt', 'is', null) : update).returningAll().executeTakeFirst();
}

/** Changes a log's columns, its version as it is. */
export async function setLogColumns(
  db: Db,
  id: number,
  changes: Updateable<ResourceLogsTable>,
): Promise<void> {
  await db.updateTable('resource_logs').set(changes).where('id', '=', id).execute();
}

/** The resource's log a session id names (running or not). */
export function sessionLogRow(db: Db, resource: number, sessionId: string): Promise<LogRow | undefined> {
  const { column, value } = sessionKey(sessionId);
  return db
    .selectFrom('resource_logs')
    .selectAll()
    .where('resource', '=', resource)
    .where(column, '=', value)
    .executeTakeFirst();
}

/** The log the agent wrote under a client id (a tap id). */
export function logByClientId(db: Db, resource: number, clientId: string) {
  return firstWhere(db, 'resource_logs', { resource, clientId }, ['id', 'offline']);
}

/** The log of a tap (by its tap id) with its member's name: the answer already given to it. */
export function tapLog(db: Db, resource: number, tapId: string) {
  return db
    .selectFrom('resource_logs as l')
    .leftJoin('members as m', 'm.id', 'l.member')
    .select([
      ...qualified('l', ['id', 'type', 'reason', 'stoppedAt', 'offline']),
      'm.id as memberId',
      ...qualified('m', ['firstName', 'lastName']),
    ])
    .where('l.resource', '=', resource)
    .where('l.clientId', '=', tapId)
    .executeTakeFirst();
}

/** The log tells a decision the bridge took offline. */
export async function setLogOffline(db: Db, id: number): Promise<void> {
  await updateWhere(db, 'resource_logs', { id }, { offline: 1 });
}

/** The resource's running sessions (allowed logs not stopped). */
function runningSessions(db: Db, resource: number) {
  return db
    .selectFrom('resource_logs')
    .where('resource', '=', resource)
    .where('type', '=', 'allowed')
    .where('stoppedAt', 'is', null);
}

/** Every running session of the resource. */
export function openSessions(db: Db, resource: number) {
  return runningSessions(db, resource).select(['id', 'clientId']).execute();
}

/** The running machine session a session id names. */
export function runningSessionLog(db: Db, resource: number, sessionId: string) {
  const { column, value } = sessionKey(sessionId);
  return runningSessions(db, resource).select(['id', 'member']).where(column, '=', value).executeTakeFirst();
}

/** The resource's newest running session. */
export function newestOpenSession(db: Db, resource: number) {
  return runningSessions(db, resource).select(['id', 'member']).orderBy('id', 'desc').executeTakeFirst();
}

/*
 * The `pending_switch_ons` table: the record of a switch-on sent to a bridge that survives a hub
 * crash until its outcome is known (switch-sessions.ts). The hot path's writes are plain SQL.
 */

export interface PendingSwitchOn {
  commandId: string;
  resource: number;
  log: number;
  door: boolean;
  /** The command as sent, without its session id and expiry (JSON). */
  command: string;
  createdAt: string;
}

export async function insertPendingSwitchOn(db: Db, p: PendingSwitchOn): Promise<void> {
  await rawRows(
    db,
    'insert into "pending_switch_ons" ("commandId", "resource", "log", "door", "state", "command", "createdAt") values (?, ?, ?, ?, ?, ?, ?)',
    [p.commandId, p.resource, p.log, p.door ? 1 : 0, 'pending', p.command, p.createdAt],
  );
}

export async function deletePendingSwitchOns(db: Db, commandIds: readonly string[]): Promise<void> {
  await rawRows(
    db,
    `delete from "pending_switch_ons" where "commandId" in (${commandIds.map(() => '?').join(', ')})`,
    commandIds,
  );
}

export async function deletePendingSwitchOn(db: Db, commandId: string): Promise<void> {
  await db.deleteFrom('pending_switch_ons').where('commandId', '=', commandId).execute();
}

/** No reply in time: a late one is recorded as a late switch. */
export async function setPendingTimedOut(db: Db, commandId: string): Promise<void> {
  await db
    .updateTable('pending_switch_ons')
    .set({ state: 'timedOut' })
    .where('commandId', '=', commandId)
    .execute();
}

export function pendingSwitchOn(db: Db, resource: number, commandId: string) {
  return firstWhere(db, 'pending_switch_ons', { commandId, resource });
}

export function pendingSwitchOnsOf(db: Db, resource: number) {
  return db.selectFrom('pending_switch_ons').selectAll().where('resource', '=', resource).execute();
}
