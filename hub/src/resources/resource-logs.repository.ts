import type { ResourceLogType } from '@makerspace/shared';
import type { Selectable, SelectQueryBuilder, Updateable } from 'kysely';
import type { Db } from '../db/crud.js';
import { rawRows } from '../db/fast-reads.js';
import type { Database, ResourceLogsTable } from '../db/schema.js';
import { badRequest } from '../errors.js';

type LogQuery = SelectQueryBuilder<Database, 'resource_logs', object>;

/** The list's filters beside `resource` and `member` (which compare their column). */
export interface LogFilters {
  type?: unknown;
  status?: unknown;
  from?: unknown;
  until?: unknown;
}

/**
 * `type` (any of), `status=active` (sessions still running), and the period `from`..`until`: the
 * logs that overlap it. A log starts at `createdAt`; a session (an allowed log) lasts until
 * `stoppedAt` or, while it runs, until now. So a session switched on at 17:00 and off at 23:00
 * is among the logs of "last night from 20:00", though it began before.
 */
export function logFilters(base: LogQuery, query: LogFilters): LogQuery {
  const types = (query.type ?? []) as ResourceLogType[];
  let q = types.length ? base.where('type', 'in', types) : base;
  if (query.status === 'active') q = q.where('stoppedAt', 'is', null).where('type', '=', 'allowed');
  const from = query.from === undefined ? undefined : iso(query.from as string);
  const until = query.until === undefined ? undefined : iso(query.until as string);
  if (from !== undefined && until !== undefined && until <= from)
    throw badRequest('until: must be later than from', { field: 'until' });
  if (until !== undefined) q = q.where('createdAt', '<', until);
  if (from !== undefined)
    q = q.where((eb) =>
      eb.or([
        eb('createdAt', '>=', from),
        eb.and([
          eb('type', '=', 'allowed'),
          eb.or([eb('stoppedAt', 'is', null), eb('stoppedAt', '>=', from)]),
        ]),
      ]),
    );
  return q;
}

/** Stored times are ISO strings in UTC with milliseconds; a query's time is compared in that form. */
const iso = (time: string) => new Date(time).toISOString();

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
  return db
    .selectFrom('resource_logs')
    .select(['id', 'offline'])
    .where('resource', '=', resource)
    .where('clientId', '=', clientId)
    .executeTakeFirst();
}

/** The log of a tap (by its tap id) with its member's name: the answer already given to it. */
export function tapLog(db: Db, resource: number, tapId: string) {
  return db
    .selectFrom('resource_logs as l')
    .leftJoin('members as m', 'm.id', 'l.member')
    .select([
      'l.id',
      'l.type',
      'l.reason',
      'l.stoppedAt',
      'l.offline',
      'm.id as memberId',
      'm.firstName',
      'm.lastName',
    ])
    .where('l.resource', '=', resource)
    .where('l.clientId', '=', tapId)
    .executeTakeFirst();
}

/** The log tells a decision the bridge took offline. */
export async function setLogOffline(db: Db, id: number): Promise<void> {
  await db.updateTable('resource_logs').set({ offline: 1 }).where('id', '=', id).execute();
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

/** The id of the resource's newest allowed log. */
export async function newestAllowedLog(db: Db, resource: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('resource_logs')
    .select('id')
    .where('resource', '=', resource)
    .where('type', '=', 'allowed')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** The members a page of logs names, as the logs show them (the identity area's table). */
export function memberRefs(db: Db, ids: readonly number[]) {
  return db
    .selectFrom('members')
    .select(['id', 'memberNumber', 'firstName', 'lastName', 'state'])
    .where('id', 'in', [...ids])
    .execute();
}

/** The account's taps refused as unknown cards since `since`, newest first, at most `limit`. */
export function unknownKeyLogs(db: Db, account: number, since: string, limit: number) {
  return db
    .selectFrom('resource_logs')
    .select(['resource', 'createdAt', 'metadata'])
    .where('account', '=', account)
    .where('type', '=', 'denied')
    .where('reason', '=', 'unknownKey')
    .where('createdAt', '>=', since)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
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
  return db
    .selectFrom('pending_switch_ons')
    .selectAll()
    .where('commandId', '=', commandId)
    .where('resource', '=', resource)
    .executeTakeFirst();
}

export function pendingSwitchOnsOf(db: Db, resource: number) {
  return db.selectFrom('pending_switch_ons').selectAll().where('resource', '=', resource).execute();
}
