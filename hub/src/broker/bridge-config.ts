import { type BridgeConfig, offlineKeySecret } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import { type OfflineKeyFacts, offlineKeysFor } from '../keys/offline-keys.js';

/** The retained config a bridge works from, also while the hub is away (DESIGN 7). */
export async function bridgeConfigFor(
  ctx: HubContext,
  resourceId: number,
  /** Shared by the bridges of one refresh (keys/offline-keys.ts). */
  facts?: OfflineKeyFacts,
): Promise<BridgeConfig | null> {
  const row = await ctx.db
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
  if (!row) return null;
  const secret = offlineKeySecret(ctx.tokens.open(row.apiKeyEncrypted));
  const offlineKeys = await offlineKeysFor(
    ctx.db,
    { id: resourceId, ...row },
    ctx.clock.now(),
    secret,
    facts,
  );
  const controlType =
    (['machine', 'door', 'pos', 'other'] as const).find((t) => t === row.controlType) ?? 'other';
  return {
    configVersion: row.configVersion,
    name: row.name,
    controlType,
    pulseSeconds: row.pulseSeconds,
    maxOfflineUsage: row.maxOfflineUsage ?? 0,
    offlineKeys,
    offlineKeyScheme: 'hmac-sha256',
    codeMode: row.codeMode === 'totp' ? 'totp' : 'static',
    heartbeatInterval: row.heartbeatInterval,
    // A TOTP resource's agent shows the current code on its display, so it needs the secret;
    // the config topic is readable by this bridge alone.
    ...(row.codeMode === 'totp' ? { totpSecret: ctx.tokens.open(row.switchOnCodeEncrypted) } : {}),
  };
}
