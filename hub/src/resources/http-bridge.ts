import type { AccessReply, BridgeConfig, KeyRead, StopType } from '@makerspace/shared';
import { randomUUID } from 'node:crypto';
import type { MemberRow, ResourceRow } from '../access/policy.js';
import { formatMoney, parseMoney } from '../kernel/money.js';
import { bridgeConfigFor } from './bridge-config.js';
import type { PolicyContext } from '../access/policy.js';
import type { HubContext } from '../context.js';
import { type PeriodicCheck, periodicCheck } from '../periodic.js';
import { jsonText, parseJson } from '../db/crud.js';
import { unauthorized } from '../errors.js';
import { answerMember, answerTap } from './card-access.js';
import { hashToken, safeEqual } from '../secrets.js';
import {
  displayLines,
  bridgeSeen as seen,
  markBridgesOffline,
  sessionRunning,
  stopAndBill,
} from './bridge-messages.js';
import { bridgeByKeyHash, heartbeatBridges, namedMemberRow, resourceById } from './bridges.repository.js';
import { emitResourceLog, insertLog, stopLog } from './resource-logs.js';
import { OfflineKeyFacts, offlineKeyCards } from './offline-keys.js';
import { sessionLogRow, setLogColumns, updateLogRow } from './sessions.repository.js';

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
  const bridge = await bridgeByKeyHash(ctx.storage.reads, hash);
  // Looked up by hash; compared in constant time all the same.
  if (!bridge || !safeEqual(bridge.apiKeyHash, hash)) throw unauthorized('Invalid bridge API key');
  const resource = await resourceById(ctx.storage.reads, bridge.resource);
  if (!resource) throw unauthorized('Invalid bridge API key');
  return { resource, configVersion: bridge.configVersion, heartbeatInterval: bridge.heartbeatInterval };
}

/**
 * The config as HTTP bridges read it: the same settings as the MQTT config, but `offlineKeys` in
 * the commercial bridge API's shape (`{type, token}`), only the keys of members who may use this
 * bridge's resource (keys/offline-keys.ts). DIY bridges compare a card's token with them as is.
 */
export type HttpBridgeConfig = Omit<
  BridgeConfig,
  'offlineKeys' | 'offlineKeyScheme' | 'heartbeatInterval'
> & {
  /** null: offline detection is off. */
  heartbeatInterval: number | null;
  offlineKeys: { type: string; token: string }[];
};

async function httpBridgeConfig(ctx: HubContext, bridge: HttpBridge): Promise<HttpBridgeConfig | null> {
  // One read of the account's keys, packages and trainings serves both lists.
  const facts = new OfflineKeyFacts(ctx.db, bridge.resource.account);
  const config = await bridgeConfigFor(ctx, bridge.resource.id, facts);
  if (!config) return null;
  const { offlineKeys: _hashes, offlineKeyScheme: _scheme, ...rest } = config;
  const cards = await offlineKeyCards(ctx.db, bridge.resource, ctx.clock.now(), facts);
  return { ...rest, heartbeatInterval: config.heartbeatInterval ?? null, offlineKeys: cards };
}

/**
 * The bridge's config when the version it holds is not the current one, else null: `config` is
 * always in the answer. A bridge without a config sends `configVersion` null, 0 or nothing.
 */
async function configUnlessCurrent(
  ctx: HubContext,
  bridge: HttpBridge,
  held: number | null | undefined,
): Promise<{ config: HttpBridgeConfig | null }> {
  if (held !== undefined && held !== null && held !== 0 && held === bridge.configVersion)
    return { config: null };
  return { config: await httpBridgeConfig(ctx, bridge) };
}

/**
 * Any request of the bridge (heartbeat, access, update, stop) shows it is alive: it is online
 * until it misses three heartbeat intervals.
 */
export function bridgeSeen(ctx: HubContext, bridge: HttpBridge): Promise<void> {
  return seen(ctx, bridge.resource.id);
}

/** A heartbeat: the bridge is online (seen by the route), and gets its config when outdated. */
export async function heartbeat(
  ctx: HubContext,
  bridge: HttpBridge,
  configVersion: number | null | undefined,
) {
  return configUnlessCurrent(ctx, bridge, configVersion);
}

export interface HttpAccessRequest {
  keys?: KeyRead[];
  emailAddress?: string;
  member?: number;
  configVersion?: number | null;
  /** The session the bridge runs; null when none (the bridges' `{id: 0}`). */
  currentSession?: { id: string } | null;
}

/** The access answer of the HTTP bridge API. */
export type HttpAccessAnswer = Omit<AccessReply, 'id' | 'sessionId'> & {
  /** A number, as the commercial bridges read it, for every session the hub opened. */
  sessionId?: number | string;
  config: HttpBridgeConfig | null;
};

/** An access request: by key card, or by a member named by id or e-mail address in the resource's account. */
export async function httpAccess(
  ctx: PolicyContext,
  bridge: HttpBridge,
  request: HttpAccessRequest,
): Promise<HttpAccessAnswer> {
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
    await sessionRunning(ctx.db, resource.id, reply.stopped !== true, ctx.clock.now().toISOString());
  }
  const { id: _id, sessionId, ...answer } = reply;
  return {
    ...answer,
    ...(sessionId === undefined
      ? {}
      : { sessionId: /^[1-9][0-9]{0,15}$/.test(sessionId) ? Number(sessionId) : sessionId }),
    ...(await displayLines(ctx, reply)),
    ...(await configUnlessCurrent(ctx, bridge, request.configVersion)),
  };
}

async function namedMember(
  ctx: HubContext,
  account: number,
  request: HttpAccessRequest,
): Promise<MemberRow | undefined> {
  return namedMemberRow(
    ctx.storage.reads,
    account,
    request.member !== undefined
      ? { id: request.member }
      : { emailKey: (request.emailAddress ?? '').trim().toLowerCase() },
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
      updatedAt: at,
    }),
  );
  return { id: '', type: 'denied', reason: 'unknownMember', messages: ['Unknown member'], member: null };
}

/** What a bridge reports about a running session (`/stop` and `/update`). */
export interface HttpSessionReport {
  id: string;
  idleDurationSeconds?: number | null;
  metadata?: Record<string, unknown> | null;
  /** The price as the bridge sends it (a float such as 0.0259245, or a decimal string). */
  charge?: { price: number | string; description?: string | null } | null;
}

export interface HttpStopRequest {
  stopType: StopType;
  currentSession: HttpSessionReport;
}

/**
 * A bridge's price in cents, rounded half away from zero: bridges compute prices as floats
 * (0.0259245 for a few grams of filament), money is stored exact.
 */
export function bridgePrice(price: number | string): bigint {
  const text = typeof price === 'number' ? price.toFixed(8) : price.trim();
  const m = /^(\d{1,12})(?:\.(\d*))?$/.exec(text);
  if (!m) throw new RangeError(`Not an amount: ${text}`);
  const digits = (m[2] ?? '').padEnd(3, '0');
  let cents = BigInt(m[1]) * 100n + BigInt(digits.slice(0, 2));
  if (Number(digits[2]) >= 5) cents += 1n;
  return parseMoney(formatMoney(cents * 100n));
}

/** The columns a session report changes on the session's log. */
function reportColumns(log: { metadata: string | null }, session: HttpSessionReport, at: string) {
  const price = session.charge ? bridgePrice(session.charge.price) : null;
  return {
    ...(session.metadata
      ? {
          metadata:
            jsonText({ ...(parseJson<Record<string, unknown>>(log.metadata) ?? {}), ...session.metadata }) ??
            null,
        }
      : {}),
    ...(session.charge && price !== null
      ? {
          extraChargeDescription: session.charge.description ?? null,
          extraChargePrice: formatMoney(price),
        }
      : {}),
    ...(session.idleDurationSeconds !== undefined && session.idleDurationSeconds !== null
      ? { idleDurationSeconds: session.idleDurationSeconds }
      : {}),
    updatedAt: at,
  };
}

/**
 * A status update during a session (`/update`): the log takes the idle time, metadata and the
 * charge so far. A stopped session stays as it is; an unknown one is false (404).
 */
export async function httpUpdate(
  ctx: HubContext,
  bridge: HttpBridge,
  session: HttpSessionReport,
): Promise<boolean> {
  const log = await sessionLogRow(ctx.db, bridge.resource.id, session.id);
  if (!log) return false;
  if (log.stoppedAt !== null) return true;
  const at = ctx.clock.now().toISOString();
  await ctx.events.transaction(async (trx) => {
    const row = await updateLogRow(trx, log.id, reportColumns(log, session, at), true);
    if (row) await emitResourceLog(trx, 'resourceLog_updated', row, { resource: bridge.resource });
  });
  return true;
}

/**
 * Ends a session the bridge ran: the log gets its stop, idle time and metadata, the usage is
 * billed, and the bridge's own charge (a 3D printer's material, say) becomes a charge of the
 * member. Stopping a stopped session changes nothing; an unknown session is false (404). When
 * the billing fails, the session is stopped all the same (never left running) and the error
 * goes on.
 */
export async function httpStop(
  ctx: HubContext,
  bridge: HttpBridge,
  request: HttpStopRequest,
): Promise<boolean> {
  const { resource } = bridge;
  const session = request.currentSession;
  const log = await sessionLogRow(ctx.db, resource.id, session.id);
  if (!log) return false;
  if (log.stoppedAt !== null) return true;
  const at = ctx.clock.now().toISOString();
  const stop = {
    stoppedAt: at,
    stopType: request.stopType,
    idleDurationSeconds: session.idleDurationSeconds ?? log.idleDurationSeconds ?? null,
    at,
  };
  const price = session.charge ? bridgePrice(session.charge.price) : 0n;
  try {
    await ctx.events.transaction(async (trx) => {
      if (session.metadata || session.charge) {
        await setLogColumns(trx, log.id, reportColumns(log, session, at));
      }
      if (!(await stopAndBill(trx, ctx, log.id, stop, { resource }))) return;
      await sessionRunning(trx, resource.id, false, at);
      if (session.charge && log.member !== null && price > 0n) {
        const what = session.charge.description ?? 'extra charge';
        await ctx.charges.chargeSessionExtra(trx, {
          logId: log.id,
          memberId: log.member,
          description: `${resource.name}: ${what}`,
          price,
          at,
        });
      }
    });
  } catch (err) {
    ctx.logger.error(
      { err, resourceId: resource.id, logId: log.id },
      'billing a stopped bridge session failed',
    );
    await ctx.events.transaction(async (trx) => {
      if (await stopLog(trx, log.id, stop, { resource })) await sessionRunning(trx, resource.id, false, at);
    });
    throw err;
  }
  return true;
}

/**
 * HTTP bridges count as offline after three missed heartbeats; bridges connected over MQTT
 * follow their connection instead. `check()` runs every few seconds.
 */
export function watchHeartbeats(ctx: HubContext, intervalMs = 5_000): PeriodicCheck {
  async function checkNow() {
    const at = ctx.clock.now();
    const rows = await heartbeatBridges(ctx.db);
    const silent = rows
      .filter((b) => !ctx.bridges.isOnline(b.resource))
      .filter(
        (b) => !b.lastSeenAt || Date.parse(b.lastSeenAt) < at.getTime() - 3 * b.heartbeatInterval * 1000,
      )
      .map((b) => b.resource);
    await markBridgesOffline(ctx, silent);
  }
  return periodicCheck(checkNow, intervalMs, ctx.logger, 'checking bridge heartbeats failed');
}
