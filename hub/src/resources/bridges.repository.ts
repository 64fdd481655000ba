import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import type { BridgesTable } from '../db/schema.js';

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
  await db
    .updateTable('bridges')
    .set({ offline: 0, ...(agent ?? {}), lastSeenAt: at, updatedAt: at })
    .where('resource', '=', resourceId)
    .execute();
}

/** A request of an HTTP bridge: online and seen now (its record's change time stays). */
export async function setBridgeSeen(db: Db, resourceId: number, at: string): Promise<void> {
  await db
    .updateTable('bridges')
    .set({ offline: 0, lastSeenAt: at })
    .where('resource', '=', resourceId)
    .execute();
}

/** The relay's state as the bridge reports it (or as the hub knows it from an HTTP bridge's session). */
export async function setRelayState(
  db: Db,
  resourceId: number,
  state: { inUse: boolean; relaySince: string; lastSeenAt?: string },
): Promise<void> {
  await db
    .updateTable('bridges')
    .set({
      inUse: state.inUse ? 1 : 0,
      relaySince: state.relaySince,
      ...(state.lastSeenAt === undefined ? {} : { lastSeenAt: state.lastSeenAt }),
    })
    .where('resource', '=', resourceId)
    .execute();
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

/** The bridge's `offline` flag; undefined without a bridge. */
export async function bridgeOfflineFlag(db: Db, resourceId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('bridges')
    .select('offline')
    .where('resource', '=', resourceId)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.offline);
}

export function findBridge(db: Db, resourceId: number): Promise<BridgeRow | undefined> {
  return db.selectFrom('bridges').selectAll().where('resource', '=', resourceId).executeTakeFirst();
}

export async function deleteBridgeRow(db: Db, resourceId: number): Promise<void> {
  await db.deleteFrom('bridges').where('resource', '=', resourceId).execute();
}

export function insertBridgeRow(db: Db, values: Insertable<BridgesTable>): Promise<BridgeRow> {
  return db.insertInto('bridges').values(values).returningAll().executeTakeFirstOrThrow();
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
  await db
    .updateTable('bridges')
    .set({ ...key, duplicateDeviceAt: null, duplicateDeviceAddresses: null, updatedAt: at })
    .where('resource', '=', resource)
    .execute();
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

/** What a bridge's config is made of: its resource's settings and its own. */
export function bridgeConfigRow(db: Db, resourceId: number) {
  return db
    .selectFrom('resources')
    .innerJoin('bridges', 'bridges.resource', 'resources.id')
    .select([
      'resources.name',
      'resources.account',
      'resources.space',
      'resources.type',
      'resources.state',
      'resources.requiresTraining',
      'resources.controlType',
      'resources.pulseSeconds',
      'resources.maxOfflineUsage',
      'resources.codeMode',
      'resources.switchOnCodeEncrypted',
      'bridges.configVersion',
      'bridges.heartbeatInterval',
      'bridges.apiKeyEncrypted',
    ])
    .where('resources.id', '=', resourceId)
    .executeTakeFirst();
}

/** The account's bridges get a new config version; answers their resources. */
export async function bumpConfigVersions(db: Db, account: number): Promise<number[]> {
  const bridges = await db.selectFrom('bridges').select('resource').where('account', '=', account).execute();
  if (bridges.length === 0) return [];
  await db
    .updateTable('bridges')
    .set((eb) => ({ configVersion: eb('configVersion', '+', 1) }))
    .where('account', '=', account)
    .execute();
  return bridges.map((b) => b.resource);
}

/** The bridges of these resources. */
export function bridgesOf(db: Db, resources: readonly number[]): Promise<BridgeRow[]> {
  return db
    .selectFrom('bridges')
    .selectAll()
    .where('resource', 'in', [...resources])
    .execute();
}

/** The resource's bridge gets a new config version (its resource changed). */
export async function bumpConfigVersion(db: Db, resource: number): Promise<void> {
  await db
    .updateTable('bridges')
    .set((eb) => ({ configVersion: eb('configVersion', '+', 1) }))
    .where('resource', '=', resource)
    .execute();
}
