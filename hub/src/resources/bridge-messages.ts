import type { AccessReply, LogItem, RelayStateMessage, StatusMessage, StopType } from '@makerspace/shared';
import type { PolicyContext } from '../access/policy.js';
import type { HubContext } from '../context.js';
import type { Db } from '../db/crud.js';
import { inAccount } from '../db/records.js';
import { logStorageFailure } from '../db/storage-errors.js';
import { keyByCard } from '../keys/member-keys.js';
import {
  memberName,
  type OfflineBridges,
  onlineBridgeResources,
  setBridgeOnline,
  setBridgeSeen,
  setBridgesOffline,
  setRelayState,
} from './bridges.repository.js';
import { findBridge, verifyBridgeKey } from './bridges.js';
import { insertLogOnce, type KnownRows, stopLog, updateLog } from './resource-logs.js';
import { resourceAccount } from './resources.repository.js';
import { logByClientId, sessionLogRow, setLogOffline } from './sessions.repository.js';

/*
 * What a bridge's message means, whichever way it came (the MQTT broker or the HTTP bridge API):
 * presence, the relay's state, the logs it made (offline too), and the end of a session with its
 * bill. The transports translate their messages into these calls and answer with the result.
 */

type PresenceContext = Pick<HubContext, 'db' | 'clock' | 'signals'>;

/**
 * The lines an allowed answer shows on the bridge's display, as the commercial service sends
 * them over its HTTP bridge API and this hub sends them over MQTT too: the member's first name,
 * then the last name (bridges show `messages[0]` and `messages[1]`), then any lines of the answer
 * itself ("Checked in"). Other answers keep their lines (the reason of a denial, a message).
 */
export async function displayLines(
  ctx: Pick<HubContext, 'storage'>,
  reply: Pick<AccessReply, 'type' | 'member' | 'messages'>,
): Promise<{ messages?: string[] }> {
  if (reply.type !== 'allowed' || !reply.member) return reply.messages ? { messages: reply.messages } : {};
  const member = await memberName(ctx.storage.reads, reply.member.id);
  return { messages: [member?.firstName ?? '', member?.lastName ?? '', ...(reply.messages ?? [])] };
}

/** The bridge whose key a connecting client sends, if the key is its bridge's key (null otherwise). */
export function bridgeWithKey(ctx: Pick<HubContext, 'db'>, resourceId: number, apiKey: string) {
  return verifyBridgeKey(ctx.db, resourceId, apiKey);
}

/** The hash of the resource's bridge key now (undefined without a bridge): is a connection's key still valid? */
export async function bridgeKeyHash(ctx: Pick<HubContext, 'db'>, resourceId: number) {
  return (await findBridge(ctx.db, resourceId))?.apiKeyHash;
}

/** The bridges go offline (and so out of use): the ones named, or every one flagged online. */
export async function markBridgesOffline(ctx: PresenceContext, which: OfflineBridges): Promise<void> {
  await setBridgesOffline(ctx.db, which, ctx.clock.now().toISOString());
  if (which !== 'allOnline') for (const resourceId of which) ctx.signals.changed(resourceId);
}

/** The resources whose bridge is flagged online (the cluster's presence reconciliation). */
export function bridgesFlaggedOnline(ctx: Pick<HubContext, 'db'>): Promise<number[]> {
  return onlineBridgeResources(ctx.db);
}

/** The bridge is online (a connection passed its checks, or its status says so). */
export async function markBridgeOnline(
  ctx: PresenceContext,
  resourceId: number,
  agent?: { agentVersion: string; hardware: string },
): Promise<void> {
  await setBridgeOnline(ctx.db, resourceId, ctx.clock.now().toISOString(), agent);
  ctx.signals.changed(resourceId);
}

/** The bridge's `status`: online with its agent's version and hardware, or offline. */
export function bridgeStatus(ctx: PresenceContext, resourceId: number, status: StatusMessage): Promise<void> {
  return status.online
    ? markBridgeOnline(ctx, resourceId, { agentVersion: status.agentVersion, hardware: status.hardware })
    : markBridgesOffline(ctx, [resourceId]);
}

/** A request of an HTTP bridge shows it is alive: online until it misses three heartbeats. */
export async function bridgeSeen(ctx: Pick<HubContext, 'db' | 'clock'>, resourceId: number): Promise<void> {
  await setBridgeSeen(ctx.db, resourceId, ctx.clock.now().toISOString());
}

/** The relay's `state` as the bridge reports it. */
export async function relayState(ctx: PresenceContext, resourceId: number, state: RelayStateMessage) {
  await setRelayState(ctx.db, resourceId, {
    inUse: state.relay === 'on',
    relaySince: state.since,
    lastSeenAt: ctx.clock.now().toISOString(),
  });
  ctx.signals.changed(resourceId);
}

/** An HTTP bridge reports no relay: the hub knows it runs a session from its answers and stops. */
export async function sessionRunning(
  db: Db,
  resourceId: number,
  running: boolean,
  at: string,
): Promise<void> {
  await setRelayState(db, resourceId, { inUse: running, relaySince: at });
}

export interface SessionStop {
  stoppedAt: string;
  stopType: StopType;
  idleDurationSeconds?: number | null;
  /** The member who stopped it (an admin's switch-off), when not the bridge. */
  updatedBy?: number;
  /** The hub's time of the change (the hub's clock). */
  at: string;
}

/**
 * Stops a running session and bills it, in the transaction `trx` (the stop, its event and the
 * charge commit together, once per log whatever resends). False: it was stopped already.
 */
export async function stopAndBill(
  trx: Db,
  ctx: Pick<HubContext, 'charges'>,
  logId: number,
  stop: SessionStop,
  known: KnownRows = {},
): Promise<boolean> {
  if (!(await stopLog(trx, logId, stop, known))) return false;
  await ctx.charges.chargeSession(trx, logId);
  return true;
}

/** Stores the logs of one `logs` message in one transaction; returns the ids to acknowledge. */
export async function ingestLogs(
  ctx: PolicyContext,
  resourceId: number,
  items: LogItem[],
): Promise<string[] | null> {
  const resource = await resourceAccount(ctx.db, resourceId);
  if (!resource) return null;
  const stopped: number[] = [];
  await ctx.db.transaction().execute(async (trx) => {
    for (const item of items) {
      if (item.kind === 'log') {
        const stored = await insertLogOnce(trx, {
          account: resource.account,
          resource: resource.id,
          type: item.type,
          // Offline decisions name the card, not the member: the hub knows whose it is.
          member:
            (await memberOf(trx, resource.account, item.memberId)) ??
            (item.keys ? ((await keyByCard(trx, resource.account, item.keys))?.member ?? null) : null),
          createdAt: item.createdAt,
          stoppedAt: item.stoppedAt ?? null,
          stopType: item.stopType ?? null,
          reason: item.reason ?? null,
          notes: item.notes ?? null,
          metadata: item.metadata ?? (item.keys ? { keys: item.keys.map((k) => ({ type: k.type })) } : null),
          idleDurationSeconds: item.idleDurationSeconds ?? null,
          clientId: item.id,
          offline: item.offline,
          updatedAt: ctx.clock.now().toISOString(),
        });
        if (!stored && item.offline) await offlineDecisionWins(trx, resource.id, item, ctx.clock.now());
      } else {
        const log = (await sessionLogRow(trx, resource.id, item.sessionId))?.id;
        // Billed in the same transaction as the stop (once per log, whatever resends).
        if (
          log !== undefined &&
          (await stopAndBill(trx, ctx, log, {
            stoppedAt: item.stoppedAt,
            stopType: item.stopType,
            idleDurationSeconds: item.idleDurationSeconds ?? null,
            at: ctx.clock.now().toISOString(),
          }))
        )
          stopped.push(log);
      }
    }
  });
  // The logs' webhook events (written by insertLogOnce/stopLog in the transaction) go out now.
  ctx.events.committed();
  ctx.signals.changed(resourceId);
  ctx.logger.debug({ resourceId, items: items.length, stopped: stopped.length }, 'bridge logs stored');
  return items.map((i) => i.id);
}

/**
 * The agent decided a tap offline after the hub had written its own (too late) answer under the
 * same tap id: what the relay did is the agent's decision, so the one log tells that.
 */
async function offlineDecisionWins(db: Db, resource: number, item: LogItem & { kind: 'log' }, at: Date) {
  const row = await logByClientId(db, resource, item.id);
  if (!row || row.offline) return;
  await updateLog(db, row.id, {
    type: item.type,
    reason: item.reason ?? null,
    stoppedAt: item.stoppedAt ?? null,
    stopType: item.stopType ?? null,
    notes: item.notes ?? 'Decided by the bridge offline: the hub answered too late',
    at: at.toISOString(),
  });
  await setLogOffline(db, row.id);
}

async function memberOf(db: Db, account: number, memberId: number | null | undefined) {
  if (!memberId) return null;
  return (await inAccount(db, 'members', memberId, account)) ? memberId : null;
}

/** A bridge message whose handling failed: logged (a full disk named as such), never thrown. */
export function bridgeMessageFailed(
  ctx: Pick<HubContext, 'logger'>,
  err: unknown,
  operation: string,
  resourceId: number | string,
): void {
  logStorageFailure(ctx.logger, err, operation, { resourceId }, 'bridge message handling failed');
}
