import type { AccessReply, BridgeConfig, KeyRead, StopType } from '@makerspace/shared';
import { randomUUID } from 'node:crypto';
import type { MemberRow, ResourceRow } from '../access/policy.js';
import { chargeForStoppedSession, insertCharge, memberTaxPercent } from '../billing/charges.js';
import { formatMoney, parseMoney, roundToCents } from '../billing/money.js';
import { bridgeConfigFor } from './bridge-config.js';
import type { PolicyContext } from '../access/policy.js';
import type { HubContext } from '../context.js';
import { type PeriodicCheck, periodicCheck } from '../periodic.js';
import { jsonText, now, parseJson } from '../db/crud.js';
import { unauthorized } from '../errors.js';
import { answerMember, answerTap } from '../keys/card-access.js';
import { hashToken, safeEqual } from '../secrets.js';
import { insertLog, sessionKey, stopLog } from './resource-logs.js';

/*
 * Fabman's HTTP bridge API (shared/reference/api-fields.md), for DIY bridges that poll over
 * HTTP instead of holding an MQTT connection: heartbeat, access and stop, authenticated with the
 * resource's bridge API key. Decisions, logs and charges are the same as for card taps over MQTT.
 */

export interface HttpBridge {
  resource: ResourceRow;
  configVersion: number;
  heartbeatInterval: number;
}

/** The bridge whose API key the request carries; 401 otherwise. */
export async function bridgeByKey(ctx: HubContext, apiKey: string | null): Promise<HttpBridge> {
  if (!apiKey) throw unauthorized();
  const hash = hashToken(apiKey);
  const bridge = await ctx.storage.reads.first<{
    resource: number;
    apiKeyHash: string;
    configVersion: number;
    heartbeatInterval: number;
  }>(
    'select "resource", "apiKeyHash", "configVersion", "heartbeatInterval" from "bridges" where "apiKeyHash" = ?',
    [hash],
  );
  // Looked up by hash; compared in constant time all the same.
  if (!bridge || !safeEqual(bridge.apiKeyHash, hash)) throw unauthorized('Invalid bridge API key');
  const resource = await ctx.storage.reads.first<ResourceRow>('select * from "resources" where "id" = ?', [
    bridge.resource,
  ]);
  if (!resource) throw unauthorized('Invalid bridge API key');
  return { resource, configVersion: bridge.configVersion, heartbeatInterval: bridge.heartbeatInterval };
}

/** The bridge's config when the version it holds is not the current one. */
async function configUnlessCurrent(
  ctx: HubContext,
  bridge: HttpBridge,
  held: number | undefined,
): Promise<{ config?: BridgeConfig }> {
  if (held === bridge.configVersion) return {};
  const config = await bridgeConfigFor(ctx, bridge.resource.id);
  return config ? { config } : {};
}

/** A heartbeat: the bridge is online (until it misses three), and gets its config when outdated. */
export async function heartbeat(ctx: HubContext, bridge: HttpBridge, configVersion: number | undefined) {
  const at = ctx.clock.now().toISOString();
  await ctx.db
    .updateTable('bridges')
    .set({ offline: 0, lastSeenAt: at, updatedAt: at })
    .where('resource', '=', bridge.resource.id)
    .execute();
  return configUnlessCurrent(ctx, bridge, configVersion);
}

export interface HttpAccessRequest {
  keys?: KeyRead[];
  emailAddress?: string;
  member?: number;
  configVersion?: number;
  currentSession?: { id: string } | null;
}

/** An access request: by key card, or by a member named by id or e-mail address in the resource's account. */
export async function httpAccess(
  ctx: PolicyContext,
  bridge: HttpBridge,
  request: HttpAccessRequest,
): Promise<Omit<AccessReply, 'id'> & { config?: BridgeConfig }> {
  const { resource } = bridge;
  const currentSession = request.currentSession ?? null;
  let reply: AccessReply | null;
  if (request.keys) {
    reply = await answerTap(ctx, resource.id, { id: randomUUID(), keys: request.keys, currentSession });
  } else {
    const member = await namedMember(ctx, resource.account, request);
    reply = member
      ? await answerMember(
          ctx,
          resource,
          {
            member,
            metadata: request.emailAddress ? { emailAddress: request.emailAddress } : { member: member.id },
          },
          randomUUID(),
          currentSession,
        )
      : await unknownMember(ctx, resource);
  }
  if (!reply) throw unauthorized('Invalid bridge API key'); // the resource was deleted meanwhile
  if (reply.type === 'allowed') {
    // The bridge runs the session now (a machine), or the tap ended it (or a door's pulse).
    await setInUse(ctx, resource.id, reply.stopped !== true);
  }
  const { id: _id, ...answer } = reply;
  return { ...answer, ...(await configUnlessCurrent(ctx, bridge, request.configVersion)) };
}

/** The bridge record's `inUse` follows the sessions an HTTP bridge runs. */
async function setInUse(ctx: HubContext, resourceId: number, inUse: boolean) {
  await ctx.db
    .updateTable('bridges')
    .set({ inUse: inUse ? 1 : 0, relaySince: ctx.clock.now().toISOString() })
    .where('resource', '=', resourceId)
    .execute();
}

async function namedMember(
  ctx: HubContext,
  account: number,
  request: HttpAccessRequest,
): Promise<MemberRow | undefined> {
  if (request.member !== undefined) {
    return ctx.storage.reads.first<MemberRow>('select * from "members" where "id" = ? and "account" = ?', [
      request.member,
      account,
    ]);
  }
  return ctx.storage.reads.first<MemberRow>(
    'select * from "members" where "emailKey" = ? and "account" = ?',
    [(request.emailAddress ?? '').trim().toLowerCase(), account],
  );
}

async function unknownMember(ctx: HubContext, resource: ResourceRow): Promise<AccessReply> {
  const at = ctx.clock.now().toISOString();
  await ctx.events.transaction((trx) =>
    insertLog(trx, {
      account: resource.account,
      resource: resource.id,
      type: 'denied',
      member: null,
      createdAt: at,
      stoppedAt: at,
      reason: 'unknownMember',
    }),
  );
  return { id: '', type: 'denied', reason: 'unknownMember', messages: ['Unknown member'], member: null };
}

export interface HttpStopRequest {
  stopType: StopType;
  currentSession: {
    id: string;
    idleDurationSeconds?: number;
    metadata?: Record<string, unknown>;
    charge?: { price: number | string; description: string };
  };
}

/**
 * Ends a session the bridge ran: the log gets its stop, idle time and metadata, the usage is
 * billed, and the bridge's own charge (a 3D printer's material, say) becomes a charge of the
 * member. Stopping a stopped session changes nothing; an unknown session is null (404).
 */
export async function httpStop(
  ctx: HubContext,
  bridge: HttpBridge,
  request: HttpStopRequest,
): Promise<boolean> {
  const { resource } = bridge;
  const { column, value } = sessionKey(request.currentSession.id);
  const log = await ctx.db
    .selectFrom('resource_logs')
    .selectAll()
    .where('resource', '=', resource.id)
    .where(column, '=', value)
    .executeTakeFirst();
  if (!log) return false;
  if (log.stoppedAt !== null) return true;
  const session = request.currentSession;
  await ctx.events.transaction(async (trx) => {
    if (session.metadata || session.charge) {
      await trx
        .updateTable('resource_logs')
        .set({
          ...(session.metadata
            ? {
                metadata:
                  jsonText({
                    ...(parseJson<Record<string, unknown>>(log.metadata) ?? {}),
                    ...session.metadata,
                  }) ?? null,
              }
            : {}),
          ...(session.charge
            ? {
                extraChargeDescription: session.charge.description,
                extraChargePrice: formatMoney(roundToCents(parseMoney(session.charge.price))),
              }
            : {}),
          updatedAt: now(),
        })
        .where('id', '=', log.id)
        .execute();
    }
    const stopped = await stopLog(
      trx,
      log.id,
      {
        stoppedAt: ctx.clock.now().toISOString(),
        stopType: request.stopType,
        idleDurationSeconds: session.idleDurationSeconds ?? null,
      },
      { resource },
    );
    if (!stopped) return;
    await trx
      .updateTable('bridges')
      .set({ inUse: 0, relaySince: ctx.clock.now().toISOString() })
      .where('resource', '=', resource.id)
      .execute();
    await chargeForStoppedSession(trx, ctx, log.id);
    if (session.charge && log.member !== null && parseMoney(session.charge.price) > 0n) {
      const member = await trx
        .selectFrom('members')
        .selectAll()
        .where('id', '=', log.member)
        .executeTakeFirst();
      if (member) {
        await insertCharge(trx, {
          account: member.account,
          member: member.id,
          dateTime: ctx.clock.now().toISOString(),
          description: `${resource.name}: ${session.charge.description}`,
          price: parseMoney(session.charge.price),
          taxPercent: await memberTaxPercent(trx, member),
          resourceLog: log.id,
          // One bridge charge per session, whatever the bridge resends.
          feeKey: `bridgeCharge:${log.id}`,
          calculated: false,
          updatedBy: null,
        });
      }
    }
  });
  return true;
}

/**
 * HTTP bridges count as offline after three missed heartbeats; bridges connected over MQTT
 * follow their connection instead. `check()` runs every few seconds.
 */
export function watchHeartbeats(ctx: HubContext, intervalMs = 5_000): PeriodicCheck {
  async function checkNow() {
    const at = ctx.clock.now();
    const rows = await ctx.db
      .selectFrom('bridges')
      .select(['resource', 'heartbeatInterval', 'lastSeenAt'])
      .where('offline', '=', 0)
      .execute();
    const silent = rows
      .filter((b) => !ctx.bridges.isOnline(b.resource))
      .filter(
        (b) => !b.lastSeenAt || Date.parse(b.lastSeenAt) < at.getTime() - 3 * b.heartbeatInterval * 1000,
      )
      .map((b) => b.resource);
    if (silent.length === 0) return;
    await ctx.db
      .updateTable('bridges')
      .set({ offline: 1, inUse: 0, updatedAt: at.toISOString() })
      .where('resource', 'in', silent)
      .execute();
  }
  return periodicCheck(checkNow, intervalMs, ctx.logger, 'checking bridge heartbeats failed');
}
