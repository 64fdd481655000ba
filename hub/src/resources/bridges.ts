import { randomBytes } from 'node:crypto';
import type { Db } from '../db/crud.js';
import { columnsOf, flags } from '../db/records.js';
import {
  type BridgeRow,
  deleteBridgeRow,
  findBridge,
  insertBridgeRow,
  setBridgeKey,
  updateBridgeSettings,
} from './bridges.repository.js';
import { hashToken, safeEqual, type TokenBox } from '../secrets.js';
import type { WebhookEventType } from '@makerspace/shared';
import { emitEvent } from '../db/outbox.js';
import { resourceEventRecord, type ResourceRow } from './resources.js';

export type { BridgeRow };

export function bridgeRecord(row: BridgeRow) {
  return {
    ...columnsOf(row, [
      'resource',
      'serialNumber',
      'agentVersion',
      'lastSeenAt',
      'configVersion',
      'duplicateDeviceAt',
      'createdAt',
      'updatedAt',
    ]),
    // 0 stores "no offline detection" (PUT with heartbeatInterval: null).
    heartbeatInterval: row.heartbeatInterval > 0 ? row.heartbeatInterval : null,
    ...flags(row, ['inUse', 'offline']),
    hasAPIKey: true,
    duplicateDeviceAddresses: row.duplicateDeviceAddresses
      ? (JSON.parse(row.duplicateDeviceAddresses) as string[])
      : [],
  };
}

/** A bridge's heartbeat interval as stored: null (no offline detection) is 0. */
export const heartbeatColumn = (seconds: number | null): number => seconds ?? 0;

export function newBridgeKey(): string {
  return randomBytes(24).toString('base64url');
}

/** Deletes a resource's bridge (its key stops working); answers the row it was, if any. */
export async function deleteBridge(db: Db, resourceId: number): Promise<BridgeRow | undefined> {
  const bridge = await findBridge(db, resourceId);
  if (bridge) await deleteBridgeRow(db, resourceId);
  return bridge;
}

export { findBridge };

export async function createBridge(
  db: Db,
  box: TokenBox,
  values: {
    resource: number;
    account: number;
    createdBy: number;
    serialNumber?: string | null;
    heartbeatInterval?: number | null;
  },
  at: string,
): Promise<{ row: BridgeRow; apiKey: string }> {
  const apiKey = newBridgeKey();
  const row = await insertBridgeRow(db, {
    resource: values.resource,
    account: values.account,
    serialNumber: values.serialNumber ?? null,
    ...(values.heartbeatInterval !== undefined
      ? { heartbeatInterval: heartbeatColumn(values.heartbeatInterval) }
      : {}),
    apiKeyHash: hashToken(apiKey),
    apiKeyEncrypted: box.seal(apiKey),
    createdBy: values.createdBy,
    createdAt: at,
    updatedAt: at,
  });
  return { row, apiKey };
}

/** Changes a bridge's serial number or heartbeat; its config version goes up (the agent works from it). */
export async function updateBridge(
  db: Db,
  resource: number,
  changes: { serialNumber?: string | null; heartbeatInterval?: number | null },
  at: string,
): Promise<void> {
  const { heartbeatInterval, ...rest } = changes;
  const columns =
    heartbeatInterval !== undefined
      ? { ...rest, heartbeatInterval: heartbeatColumn(heartbeatInterval) }
      : rest;
  await updateBridgeSettings(db, resource, columns, at);
}

export async function rotateBridgeKey(db: Db, box: TokenBox, resource: number, at: string): Promise<string> {
  const apiKey = newBridgeKey();
  // A new key ends a duplicate: whoever else held the old one is cut off.
  await setBridgeKey(db, resource, { apiKeyHash: hashToken(apiKey), apiKeyEncrypted: box.seal(apiKey) }, at);
  return apiKey;
}

/** Is this the bridge API key of that resource? Constant-time on the hashes. */
export async function verifyBridgeKey(db: Db, resource: number, apiKey: string): Promise<BridgeRow | null> {
  const row = await findBridge(db, resource);
  if (!row) return null;
  return safeEqual(row.apiKeyHash, hashToken(apiKey)) ? row : null;
}

export function emitBridge(
  db: Db,
  type: Extract<WebhookEventType, `bridge_${string}`>,
  bridge: BridgeRow,
  resource: ResourceRow,
) {
  return emitEvent(db, {
    account: resource.account,
    type,
    details: async () => ({
      bridge: bridgeRecord(bridge),
      resource: await resourceEventRecord(db, resource),
    }),
  });
}
