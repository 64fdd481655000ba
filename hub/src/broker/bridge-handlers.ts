import { inAccount } from '../db/records.js';
import { logStorageFailure } from '../db/storage-errors.js';
import type { BridgeMessage, CommandReply, DownTopicName, LogItem, UpTopicName } from '@makerspace/shared';
import type { PolicyContext } from '../access/policy.js';
import type { Db } from '../db/crud.js';
import { chargeForStoppedSession } from '../billing/charges.js';
import { answerTap } from '../keys/card-access.js';
import { keyByCard } from '../keys/member-keys.js';
import { insertLogOnce, sessionKey, stopLog, updateLog } from '../resources/resource-logs.js';

/** What the handlers answer through: the broker's publishing side. */
export interface BridgeReplies {
  publish<N extends DownTopicName>(resourceId: number, name: N, message: BridgeMessage<N>): Promise<void>;
  resolveReply(resourceId: number, reply: CommandReply): Promise<void>;
}

export interface BridgeMessageHandlers {
  handle(resourceId: number, name: UpTopicName, message: BridgeMessage<UpTopicName>): void;
  /** `release` (cluster mode) first gives the bridge up; false: another hub holds it, nothing is written. */
  markOffline(resourceId: number, release?: () => Promise<boolean>): void;
  /** A connection of the bridge passed its key checks; `claim` (cluster mode) runs first. */
  markOnline(resourceId: number, claim?: () => Promise<void>): void;
  /** Runs the reconciliation after a connect, beside the bridge's message queue. */
  reconcile(resourceId: number, work: () => Promise<void>): void;
  /** Waits for every message being handled (graceful shutdown acknowledges nothing unstored). */
  settle(): Promise<void>;
}

/** Stores the logs of one `logs` message in one transaction; returns the ids to acknowledge. */
export async function ingestLogs(
  ctx: PolicyContext,
  resourceId: number,
  items: LogItem[],
): Promise<string[] | null> {
  const resource = await ctx.db
    .selectFrom('resources')
    .select(['id', 'account'])
    .where('id', '=', resourceId)
    .executeTakeFirst();
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
        const log = await sessionLog(trx, resource.id, item.sessionId);
        if (log !== null) {
          const stoppedNow = await stopLog(trx, log, {
            stoppedAt: item.stoppedAt,
            stopType: item.stopType,
            idleDurationSeconds: item.idleDurationSeconds ?? null,
            at: ctx.clock.now().toISOString(),
          });
          if (stoppedNow) {
            stopped.push(log);
            // Billed in the same transaction as the stop (once per log, whatever resends).
            await chargeForStoppedSession(trx, ctx, log);
          }
        }
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
  const row = await db
    .selectFrom('resource_logs')
    .select(['id', 'offline'])
    .where('resource', '=', resource)
    .where('clientId', '=', item.id)
    .executeTakeFirst();
  if (!row || row.offline) return;
  await updateLog(db, row.id, {
    type: item.type,
    reason: item.reason ?? null,
    stoppedAt: item.stoppedAt ?? null,
    stopType: item.stopType ?? null,
    notes: item.notes ?? 'Decided by the bridge offline: the hub answered too late',
    at: at.toISOString(),
  });
  await db.updateTable('resource_logs').set({ offline: 1 }).where('id', '=', row.id).execute();
}

async function memberOf(db: Db, account: number, memberId: number | null | undefined) {
  if (!memberId) return null;
  return (await inAccount(db, 'members', memberId, account)) ? memberId : null;
}

async function sessionLog(db: Db, resource: number, sessionId: string): Promise<number | null> {
  const { column, value } = sessionKey(sessionId);
  const row = await db
    .selectFrom('resource_logs')
    .select('id')
    .where('resource', '=', resource)
    .where(column, '=', value)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** One handler per message kind, dispatched from one table. */
export function createHandlers(ctx: PolicyContext, broker: BridgeReplies): BridgeMessageHandlers {
  const inFlight = new Set<Promise<void>>();
  // Messages of one bridge are handled one after the other, in the order they arrived: a
  // session's stop must never overtake the log that opened it.
  const queues = new Map<number | string, Promise<void>>();
  const track = (
    resourceId: number | string,
    work: () => Promise<void>,
    operation = 'handling a bridge message',
  ) => {
    const previous = queues.get(resourceId) ?? Promise.resolve();
    ctx.metrics.bridgeMessagesQueued.inc();
    const p = previous
      .then(work)
      .catch((err) =>
        logStorageFailure(ctx.logger, err, operation, { resourceId }, 'bridge message handling failed'),
      );
    queues.set(resourceId, p);
    inFlight.add(p);
    p.finally(() => {
      ctx.metrics.bridgeMessagesQueued.dec();
      inFlight.delete(p);
      if (queues.get(resourceId) === p) queues.delete(resourceId);
    });
  };

  const table: { [N in UpTopicName]: (resourceId: number, message: BridgeMessage<N>) => Promise<void> } = {
    async status(resourceId, message) {
      const at = ctx.clock.now().toISOString();
      if (message.online) {
        await ctx.db
          .updateTable('bridges')
          .set({
            offline: 0,
            agentVersion: message.agentVersion,
            hardware: message.hardware,
            lastSeenAt: at,
            updatedAt: at,
          })
          .where('resource', '=', resourceId)
          .execute();
      } else {
        await ctx.db
          .updateTable('bridges')
          .set({ offline: 1, inUse: 0, updatedAt: at })
          .where('resource', '=', resourceId)
          .execute();
      }
      ctx.signals.changed(resourceId);
    },
    async state(resourceId, message) {
      await ctx.db
        .updateTable('bridges')
        .set({
          inUse: message.relay === 'on' ? 1 : 0,
          relaySince: message.since,
          lastSeenAt: ctx.clock.now().toISOString(),
        })
        .where('resource', '=', resourceId)
        .execute();
      ctx.signals.changed(resourceId);
    },
    async replies(resourceId, message) {
      await broker.resolveReply(resourceId, message);
    },
    async logs(resourceId, message) {
      const ids = await ingestLogs(ctx, resourceId, message.items);
      ctx.metrics.logsIngested.inc(message.items.length);
      // Acknowledged only after the commit: a crash before this line means the agent resends.
      if (ids) await broker.publish(resourceId, 'logs/ack', { ids });
    },
    async access(resourceId, message) {
      // A card tap (DESIGN 7): decided, logged, answered with the request's id.
      const reply = await answerTap(ctx, resourceId, message);
      if (reply) await broker.publish(resourceId, 'access/reply', reply);
    },
  };

  return {
    handle(resourceId, name, message) {
      const handler = table[name] as (resourceId: number, message: unknown) => Promise<void>;
      // Replies are answered at once: a switch-on waits for them.
      const operation = `handling the bridge's ${name} message`;
      if (name === 'replies') track(-resourceId, () => handler(resourceId, message), operation);
      else track(resourceId, () => handler(resourceId, message), operation);
    },
    markOnline(resourceId, claim) {
      track(resourceId, async () => {
        await claim?.();
        const at = ctx.clock.now().toISOString();
        await ctx.db
          .updateTable('bridges')
          .set({ offline: 0, lastSeenAt: at, updatedAt: at })
          .where('resource', '=', resourceId)
          .execute();
        ctx.signals.changed(resourceId);
      });
    },
    reconcile(resourceId, work) {
      track(`reconcile-${resourceId}`, work);
    },
    markOffline(resourceId, release) {
      track(resourceId, async () => {
        if (release && !(await release())) return;
        await ctx.db
          .updateTable('bridges')
          .set({ offline: 1, inUse: 0, updatedAt: ctx.clock.now().toISOString() })
          .where('resource', '=', resourceId)
          .execute();
        ctx.signals.changed(resourceId);
      });
    },
    async settle() {
      await Promise.all([...inFlight]);
    },
  };
}
