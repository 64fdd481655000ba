import { randomUUID } from 'node:crypto';
import type { Command, CommandReply, RelayStateMessage } from '@makerspace/shared';
import type { MemberRow, ResourceRow } from '../access/policy.js';
import type { HubContext } from '../context.js';
import type { Db } from '../db/crud.js';
import { stopAndBill } from './bridge-messages.js';
import { insertLog, sessionKey, updateLog } from './resource-logs.js';
import { resourceControl } from './resources.repository.js';
import {
  openSessions,
  deletePendingSwitchOn,
  deletePendingSwitchOns,
  insertPendingSwitchOn,
  pendingSwitchOn,
  pendingSwitchOnsOf,
  setPendingTimedOut,
} from './sessions.repository.js';

/*
 * The part of a switch-on after the decision: the command, its deadline, the pending record that
 * survives a hub crash, and the reconciliation with what the bridge reports (DESIGN 6, issue 14).
 */

export interface SwitchOnResult {
  state: 'on' | 'off';
  since: string;
  resourceLog: number;
  sessionId: string;
  maxDuration: number | null;
}

export type SwitchOnOutcome =
  | { ok: true; result: SwitchOnResult }
  | { ok: false; kind: 'noReply' | 'bridgeError'; notes: string; resourceLog: number };

/**
 * How much longer than the command's expiry the hub waits for the reply: the agent refuses a
 * command after its expiry, so a reply can only come from a switch that began before it; the
 * margin covers switching and the way back.
 */
export function replyMarginMs(timeoutMs: number): number {
  return Math.min(1_000, Math.max(50, timeoutMs / 2));
}

/**
 * The absolute expiry of a command, in the bridge's clock (the offset learnt at its connect), and
 * how long the hub waits for the reply.
 */
export function commandDeadline(
  ctx: HubContext,
  resourceId: number,
  timeoutMs: number,
  hubNow = Date.now(),
): { expiresAt: string; waitMs: number } {
  const offset = ctx.bridges.clockOffsetMs(resourceId);
  return {
    expiresAt: new Date(hubNow + timeoutMs + offset).toISOString(),
    waitMs: timeoutMs + replyMarginMs(timeoutMs),
  };
}

const failedNotes = (reply: CommandReply | null, timeoutMs: number) =>
  reply
    ? `The bridge could not switch: ${reply.error ?? 'unknown error'}`
    : `No reply from the bridge within ${timeoutMs / 1000} s`;

/** How long the record of a carried-out switch-on waits for another switch-on's commit to go with. */
const SETTLED_DELETE_MS = 1_000;

/** Per hub: records of switch-ons the bridge carried out, not yet deleted. */
const settledOf = new WeakMap<HubContext, { ids: string[]; timer: NodeJS.Timeout | null }>();

/**
 * The record of a carried-out switch-on goes without a commit (an fsync) of its own: the delete
 * rides along with the next switch-on's transaction, or runs alone within SETTLED_DELETE_MS when
 * none comes. A record that outlives a crash meanwhile is settled at the bridge's next connect
 * (the agent still knows the command id), as before.
 */
function settle(ctx: HubContext, commandId: string): void {
  const settled = settledOf.get(ctx) ?? { ids: [], timer: null };
  settledOf.set(ctx, settled);
  settled.ids.push(commandId);
  settled.timer ??= setTimeout(() => {
    const ids = settled.ids;
    settled.timer = null;
    if (ids.length === 0) return;
    ctx.events
      .grouped((trx) => deleteSettled(ctx, trx))
      .catch((err) => ctx.logger.warn({ err }, 'pending switch-ons not cleared; settled at reconnect'));
  }, SETTLED_DELETE_MS);
  settled.timer.unref();
}

async function deleteSettled(ctx: HubContext, trx: Db): Promise<void> {
  const settled = settledOf.get(ctx);
  if (!settled || settled.ids.length === 0) return;
  const ids = settled.ids;
  settled.ids = [];
  await deletePendingSwitchOns(trx, ids);
}

/**
 * Per hub: the command ids of the switch-ons it is carrying out now, from before their pending
 * record is written until their outcome is. The reconciliation at a bridge's connect leaves these
 * to their own switch-on: asking the bridge about one again (the same id) would put a second
 * waiter on its reply, and the member would be answered 504 for a switch that happened.
 */
const underWayOf = new WeakMap<HubContext, Set<string>>();

function underWay(ctx: HubContext): Set<string> {
  let ids = underWayOf.get(ctx);
  if (!ids) {
    ids = new Set();
    underWayOf.set(ctx, ids);
  }
  return ids;
}

/**
 * Writes the allowed log and its pending record in one transaction, sends the command and waits
 * for the reply. Switched: the record goes. Failed: the log becomes denied. No reply: the log
 * becomes denied and the record stays ('timedOut'), so a late reply is recorded as a late switch.
 */
export async function runSwitchOn(
  ctx: HubContext,
  input: { resource: ResourceRow; member: MemberRow; at: Date; maxDuration: number | null },
  timeoutMs: number,
): Promise<SwitchOnOutcome> {
  const commandId = randomUUID();
  underWay(ctx).add(commandId);
  try {
    return await carryOut(ctx, input, timeoutMs, commandId);
  } finally {
    underWay(ctx).delete(commandId);
  }
}

async function carryOut(
  ctx: HubContext,
  input: { resource: ResourceRow; member: MemberRow; at: Date; maxDuration: number | null },
  timeoutMs: number,
  commandId: string,
): Promise<SwitchOnOutcome> {
  const { resource, member, at } = input;
  const door = resource.controlType === 'door';
  const stamp = at.toISOString();
  const base: Omit<Command, 'sessionId' | 'expiresAt'> = {
    id: commandId,
    type: door ? 'pulse' : 'switchOn',
    ...(door ? { seconds: resource.pulseSeconds } : { maxDuration: input.maxDuration }),
    member: { id: member.id, name: `${member.firstName} ${member.lastName}`.trim() },
  };
  // Doors: the session is opened and closed at once; machines run until switched off.
  const entry = await ctx.events.grouped(async (trx) => {
    await deleteSettled(ctx, trx);
    const log = await insertLog(
      trx,
      {
        account: resource.account,
        resource: resource.id,
        type: 'allowed',
        member: member.id,
        createdAt: stamp,
        stoppedAt: door ? stamp : null,
        updatedAt: ctx.clock.now().toISOString(),
        updatedBy: member.id,
      },
      { resource, member },
    );
    await insertPendingSwitchOn(trx, {
      commandId,
      resource: resource.id,
      log: log.id,
      door,
      command: JSON.stringify(base),
      createdAt: stamp,
    });
    return log;
  });
  const sessionId = String(entry.id);
  const { expiresAt, waitMs } = commandDeadline(ctx, resource.id, timeoutMs);
  const reply = await ctx.bridges.sendCommand(resource.id, { ...base, sessionId, expiresAt }, waitMs);
  if (reply?.ok) {
    // The answer rests on the committed allowed log; the record goes with a later commit.
    settle(ctx, commandId);
    return {
      ok: true,
      result: {
        state: reply.state.relay,
        since: reply.state.since,
        resourceLog: entry.id,
        sessionId,
        maxDuration: door ? null : input.maxDuration,
      },
    };
  }
  const notes = failedNotes(reply, timeoutMs);
  // An operator looking for why a member's switch-on failed finds it here (the log names no member).
  ctx.logger.warn(
    { resourceId: resource.id, commandId, resourceLog: entry.id, timeoutMs },
    reply
      ? 'switch-on: the bridge answered with an error'
      : 'switch-on: no reply from the bridge in time (504)',
  );
  await ctx.events.transaction(async (trx) => {
    await updateLog(
      trx,
      entry.id,
      {
        type: 'denied',
        reason: 'thirdPartyError',
        notes,
        stoppedAt: ctx.clock.now().toISOString(),
        at: ctx.clock.now().toISOString(),
      },
      { resource, member },
    );
    if (reply) await deletePendingSwitchOn(trx, commandId);
    else await setPendingTimedOut(trx, commandId);
  });
  return { ok: false, kind: reply ? 'bridgeError' : 'noReply', notes, resourceLog: entry.id };
}

type PendingRow = {
  commandId: string;
  resource: number;
  log: number;
  door: number;
  state: string;
  command: string;
};

/** The bridge carried the switch-on out: the log is (again) allowed, the record goes. */
async function settleSwitched(trx: Db, pending: PendingRow, late: boolean, at: Date): Promise<void> {
  if (pending.state === 'timedOut' || late) {
    await updateLog(trx, pending.log, {
      type: 'allowed',
      reason: null,
      notes: 'The bridge switched after the hub had stopped waiting (a late switch)',
      stoppedAt: pending.door ? undefined : null,
      at: at.toISOString(),
    });
  }
  await deletePendingSwitchOn(trx, pending.commandId);
}

/** The bridge did not carry the switch-on out: the log is denied, the record goes. */
async function settleFailed(trx: Db, pending: PendingRow, notes: string, at: Date): Promise<void> {
  if (pending.state !== 'timedOut') {
    const stoppedAt = at.toISOString();
    await updateLog(trx, pending.log, {
      type: 'denied',
      reason: 'thirdPartyError',
      notes,
      stoppedAt,
      at: stoppedAt,
    });
  }
  await deletePendingSwitchOn(trx, pending.commandId);
}

/** A reply nobody waits for any more (the hub answered 504): a switch is recorded as late. */
export async function settleLateReply(
  ctx: HubContext,
  resourceId: number,
  reply: CommandReply,
): Promise<void> {
  await ctx.events.transaction(async (trx) => {
    const pending = await pendingSwitchOn(trx, resourceId, reply.id);
    if (!pending) return;
    if (reply.ok) await settleSwitched(trx, pending, true, ctx.clock.now());
    else await settleFailed(trx, pending, failedNotes(reply, 0), ctx.clock.now());
  });
}

/**
 * After a bridge (re)connects, with the state it reports: every pending switch-on ends as switched
 * or failed, and no machine session stays open for a relay that is off. The agent answers a
 * command id it has carried out again, also after expiry, and never carries out an expired one,
 * so asking with the original id and an expiry in the past finds out without switching.
 */
export async function reconcileBridge(
  ctx: HubContext,
  resourceId: number,
  state: RelayStateMessage,
  askTimeoutMs = 2_000,
): Promise<void> {
  const rows = await pendingSwitchOnsOf(ctx.db, resourceId);
  // A switch-on still under way (on this hub, or on another one that waits for its reply) is left
  // to it: its reply ends its record; after its 504, a late reply or the next connect does.
  const mine = underWay(ctx);
  const pending: typeof rows = [];
  for (const row of rows)
    if (!mine.has(row.commandId) && !(await ctx.bridges.replyAwaited(row.commandId))) pending.push(row);
  await Promise.all(
    pending.map(async (p) => {
      const sent = JSON.parse(p.command) as Omit<Command, 'sessionId' | 'expiresAt'>;
      const running = state.relay === 'on' && state.sessionId === String(p.log);
      const reply = running
        ? null
        : await ctx.bridges.sendCommand(
            resourceId,
            { ...sent, sessionId: String(p.log), expiresAt: new Date(0).toISOString() },
            askTimeoutMs,
          );
      await ctx.events.transaction(async (trx) => {
        if (running || reply?.ok) await settleSwitched(trx, p, false, ctx.clock.now());
        else
          await settleFailed(
            trx,
            p,
            reply
              ? failedNotes(reply, 0)
              : 'The bridge did not carry out the switch-on (the hub restarted or lost the connection before its reply)',
            ctx.clock.now(),
          );
      });
    }),
  );
  await closeSessionsNotRunning(ctx, resourceId, state);
}

/** Machine sessions the hub holds open while the bridge reports its relay off (or another session). */
async function closeSessionsNotRunning(ctx: HubContext, resourceId: number, state: RelayStateMessage) {
  const resource = await resourceControl(ctx.db, resourceId);
  if (!resource || resource.controlType === 'door') return;
  const open = await openSessions(ctx.db, resourceId);
  // A switch-on under way right now has its pending record; its session is not stale.
  const underWay = new Set((await pendingSwitchOnsOf(ctx.db, resourceId)).map((p) => p.log));
  const running = state.relay === 'on' && state.sessionId ? sessionKey(state.sessionId) : null;
  const stale = open.filter(
    (log) =>
      !underWay.has(log.id) &&
      (!running || (running.column === 'id' ? log.id !== running.value : log.clientId !== running.value)),
  );
  if (stale.length === 0) return;
  await ctx.events.transaction(async (trx) => {
    for (const log of stale) {
      const stoppedAt = ctx.clock.now().toISOString();
      await stopAndBill(trx, ctx, log.id, { stoppedAt, stopType: 'offline', at: stoppedAt });
    }
  });
  ctx.logger.warn(
    { resourceId, sessions: stale.map((l) => l.id) },
    'closed machine sessions the bridge no longer runs',
  );
}
