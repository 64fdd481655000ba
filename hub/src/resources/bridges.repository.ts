import type { Insertable, Selectable } from 'kysely';
import {
  allWhere,
  type Db,
  deleteWhere,
  firstWhere,
  insertReturning,
  qualified,
  selectWhere,
  updateWhere,
} from '../db/crud.js';
import type { FastReads } from '../db/fast-reads.js';
import type { BridgesTable, MembersTable, ResourcesTable } from '../db/schema.js';

export type BridgeRow = Selectable<BridgesTable>;

/*
 * The `bridges` table: presence (online/offline), the relay's state, the heartbeats of HTTP
 * bridges. Queries only; what a bridge message means is in bridge-messages.ts.
 */

/** Which bridges go offline: the ones named, or every bridge flagged online. */
export type OfflineBridges = readonly number[] | 'allOnline';

/** Offline, and so not in use. */
export async function setBridgesOffline(db: Db, which: OfflineBridges, at: string): Promise<void> {
  if (which !== 'allOnline' && which.length === 0) return;
  const update = db.updateTable('bridges').set({ offline: 1, inUse: 0, updatedAt: at });
  await (which === 'allOnline'
    ? update.where('offline', '=', 0)
    : update.where('resource', 'in', [...which])
  ).execute();
}

/** Online, seen now; the agent's version and hardware when its status names them. */
export async function setBridgeOnline(
  db: Db,
  resourceId: number,
  at: string,
  agent?: { agentVersion: string; hardware: string },
): Promise<void> {
  await updateWhere(
    db,
    'bridges',
    { resource: resourceId },
    { offline: 0, ...agent, lastSeenAt: at, updatedAt: at },
  );
}

/** A request of an HTTP bridge: online and seen now (its record's change time stays). */
export async function setBridgeSeen(db: Db, resourceId: number, at: string): Promise<void> {
  await updateWhere(db, 'bridges', { resource: resourceId }, { offline: 0, lastSeenAt: at });
}

/** The relay's state as the bridge reports it (or as the hub knows it from an HTTP bridge's session). */
export async function setRelayState(
  db: Db,
  resourceId: number,
  state: { inUse: boolean; relaySince: string; lastSeenAt?: string },
): Promise<void> {
  await updateWhere(
    db,
    'bridges',
    { resource: resourceId },
    {
      inUse: state.inUse ? 1 : 0,
      relaySince: state.relaySince,
      ...(state.lastSeenAt === undefined ? {} : { lastSeenAt: state.lastSeenAt }),
    },
  );
}

/** The resources whose bridge is flagged online. */
export async function onlineBridgeResources(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('bridges').select('resource').where('offline', '=', 0).execute();
  return rows.map((b) => b.resource);
}

/** Bridges flagged online whose offline detection by heartbeats is on. */
export function heartbeatBridges(db: Db) {
  return (
    db
      .selectFrom('bridges')
      .select(['resource', 'heartbeatInterval', 'lastSeenAt'])
      .where('offline', '=', 0)
      // 0: offline detection is off for this bridge.
      .where('heartbeatInterval', '>', 0)
      .execute()
  );
}

export function findBridge(db: Db, resourceId: number): Promise<BridgeRow | undefined> {
  return firstWhere(db, 'bridges', { resource: resourceId });
}

export async function deleteBridgeRow(db: Db, resourceId: number): Promise<void> {
  await deleteWhere(db, 'bridges', { resource: resourceId });
}

export function insertBridgeRow(db: Db, values: Insertable<BridgesTable>): Promise<BridgeRow> {
  return insertReturning(db, 'bridges', values);
}

/** Changes a bridge's settings; its config version goes up (the agent works from it). */
export async function updateBridgeSettings(
  db: Db,
  resource: number,
  columns: { serialNumber?: string | null; heartbeatInterval?: number },
  at: string,
): Promise<void> {
  await db
    .updateTable('bridges')
    .set((eb) => ({ ...columns, configVersion: eb('configVersion', '+', 1), updatedAt: at }))
    .where('resource', '=', resource)
    .execute();
}

/** A new API key; it ends a duplicate (whoever else held the old one is cut off). */
export async function setBridgeKey(
  db: Db,
  resource: number,
  key: { apiKeyHash: string; apiKeyEncrypted: string },
  at: string,
): Promise<void> {
  await updateWhere(
    db,
    'bridges',
    { resource },
    { ...key, duplicateDeviceAt: null, duplicateDeviceAddresses: null, updatedAt: at },
  );
}

/** Two devices use the bridge's key; answers the bridge's account (none without a bridge). */
export function setDuplicateDevice(db: Db, resource: number, addresses: readonly string[], at: string) {
  return db
    .updateTable('bridges')
    .set({ duplicateDeviceAt: at, duplicateDeviceAddresses: JSON.stringify(addresses) })
    .where('resource', '=', resource)
    .returning(['account'])
    .executeTakeFirst();
}

/** What a bridge's config takes of its resource's settings. */
const configSettings = [
  'name',
  'account',
  'space',
  'type',
  'state',
  'requiresTraining',
  'controlType',
  'pulseSeconds',
  'maxOfflineUsage',
  'codeMode',
  'switchOnCodeEncrypted',
  'unlockMode',
  'idleTimeoutSeconds',
  'idleWarningSeconds',
  'busyGraceSeconds',
] as const;

/** What a bridge's config takes of the bridge itself. */
const configOfBridge = ['configVersion', 'heartbeatInterval', 'apiKeyEncrypted'] as const;

/** What a bridge's config is made of: its resource's settings and its own. */
export function bridgeConfigRow(db: Db, resourceId: number) {
  return db
    .selectFrom('resources')
    .innerJoin('bridges', 'bridges.resource', 'resources.id')
    .select([...qualified('resources', configSettings), ...qualified('bridges', configOfBridge)])
    .where('resources.id', '=', resourceId)
    .executeTakeFirst();
}

/** The account's bridges get a new config version; answers their resources. */
export async function bumpConfigVersions(db: Db, account: number): Promise<number[]> {
  const bridges = await allWhere(db, 'bridges', { account }, ['resource']);
  if (bridges.length === 0) return [];
  await bumpConfigVersionWhere(db, 'account', account);
  return bridges.map((b) => b.resource);
}

/** The bridges of these resources. */
export function bridgesOf(db: Db, resources: readonly number[]): Promise<BridgeRow[]> {
  return selectWhere(db, 'bridges', { resource: resources });
}

/** The resource's bridge gets a new config version (its resource changed). */
export async function bumpConfigVersion(db: Db, resource: number): Promise<void> {
  await bumpConfigVersionWhere(db, 'resource', resource);
}

/** The config version goes up for one resource's bridge or all of an account's. */
async function bumpConfigVersionWhere(db: Db, column: 'resource' | 'account', value: number) {
  await db
    .updateTable('bridges')
    .set((eb) => ({ configVersion: eb('configVersion', '+', 1) }))
    .where(column, '=', value)
    .execute();
}

/*
 * The reads of a request of an HTTP bridge (committed data, no query builder): its key, its
 * resource, and the member it names. `members` is the identity area's table.
 */

/** The bridge whose API key has this hash. */
export function bridgeByKeyHash(reads: FastReads, hash: string) {
  return reads.first<{
    resource: number;
    apiKeyHash: string;
    configVersion: number;
    heartbeatInterval: number;
  }>(
    'select "resource", "apiKeyHash", "configVersion", "heartbeatInterval" from "bridges" where "apiKeyHash" = ?',
    [hash],
  );
}

export function resourceById(reads: FastReads, id: number) {
  return reads.first<Selectable<ResourcesTable>>('select * from "resources" where "id" = ?', [id]);
}

export function memberName(reads: FastReads, id: number) {
  return reads.first<{ firstName: string; lastName: string | null }>(
    'select "firstName", "lastName" from "members" where "id" = ?',
    [id],
  );
}

/** A member of the account by id, or by e-mail address (its lower-case key). */
export function namedMemberRow(reads: FastReads, account: number, by: { id: number } | { emailKey: string }) {
  return 'id' in by
    ? reads.first<Selectable<MembersTable>>('select * from "members" where "id" = ? and "account" = ?', [
        by.id,
        account,
      ])
    : reads.first<Selectable<MembersTable>>(
        'select * from "members" where "emailKey" = ? and "account" = ?',
        [by.emailKey, account],
      );
}

/* The live state of resources: their bridge, their running session and its member. */

/** Who looks at a resource's state: the caller's account, member and role. */
export interface Viewer {
  accountId: number;
  memberId: number;
  superuser: boolean;
  /** Admin or owner of the account (or superuser). */
  admin: boolean;
}

/** A resource's live state as stored, before it is shaped for one caller. */
export interface StatusRow {
  resource: number;
  account: number;
  visibleForMembers: number;
  hasBridge: number | boolean | null;
  offline: number | null;
  inUse: number | null;
  relaySince: string | null;
  lastSeenAt: string | null;
  agentVersion: string | null;
  duplicateDeviceAt: string | null;
  duplicateDeviceAddresses: string | null;
  inputs: string | null;
  sessionId: number | null;
  sessionSince: string | null;
  sessionMember: number | null;
  firstName: string | null;
  lastName: string | null;
}

// The running session is the newest allowed log that has not stopped (machines; a door's log
// stops at once).
const STATUS_SQL = `select "r"."id" as "resource", "r"."account", "r"."visibleForMembers",
  "b"."resource" is not null as "hasBridge", "b"."offline", "b"."inUse", "b"."relaySince", "b"."lastSeenAt", "b"."agentVersion",
  "b"."duplicateDeviceAt", "b"."duplicateDeviceAddresses", "b"."inputs",
  "l"."id" as "sessionId", "l"."createdAt" as "sessionSince", "l"."member" as "sessionMember",
  "m"."firstName", "m"."lastName"
from "resources" as "r"
left join "bridges" as "b" on "b"."resource" = "r"."id"
left join "resource_logs" as "l" on "l"."id" = (
  select max("x"."id") from "resource_logs" as "x"
  where "x"."resource" = "r"."id" and "x"."type" = 'allowed' and "x"."stoppedAt" is null)
left join "members" as "m" on "m"."id" = "l"."member"`;

/**
 * The stored state of the given resources. The list is padded to a power of two (repeating its
 * last id), so the prepared statements kept for this query stay a handful however many
 * resources change at once, not one per list length.
 */
export function readStatuses(reads: FastReads, resourceIds: number[]): Promise<StatusRow[]> {
  if (resourceIds.length === 0) return Promise.resolve([]);
  const ids = [...resourceIds];
  const size = 2 ** Math.ceil(Math.log2(ids.length));
  while (ids.length < size) ids.push(resourceIds[resourceIds.length - 1]);
  return reads.rows<StatusRow>(`${STATUS_SQL} where "r"."id" in (${ids.map(() => '?').join(', ')})`, ids);
}

/** The stored state of every resource the caller sees (admins: all of the account's). */
export function readVisibleStatuses(reads: FastReads, viewer: Viewer): Promise<StatusRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (!viewer.superuser) {
    where.push('"r"."account" = ?');
    params.push(viewer.accountId);
  }
  if (!viewer.admin) where.push('"r"."visibleForMembers" = 1');
  const clause = where.length ? ` where ${where.join(' and ')}` : '';
  return reads.rows<StatusRow>(`${STATUS_SQL}${clause} order by "r"."id"`, params);
}
