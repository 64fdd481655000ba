import type { BridgeMessage, CommandReply, DownTopicName, UpTopicName } from '@makerspace/shared';
import type { PolicyContext } from '../access/policy.js';
import { recordUpdateProgress } from '../resources/agent-updates.js';
import { answerTap } from '../resources/card-access.js';
import { bridgeInputs } from '../resources/bridge-inputs.js';
import {
  bridgeMessageFailed,
  bridgeStatus,
  displayLines,
  ingestLogs,
  markBridgeOnline,
  markBridgesOffline,
  relayState,
} from '../resources/bridge-messages.js';

/*
 * The broker's side of a bridge message: the queue per bridge and the answers it publishes. What
 * each message means is in resources/bridge-messages.ts, shared with the HTTP bridge API.
 */

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
    const p = previous.then(work).catch((err) => bridgeMessageFailed(ctx, err, operation, resourceId));
    queues.set(resourceId, p);
    inFlight.add(p);
    p.finally(() => {
      ctx.metrics.bridgeMessagesQueued.dec();
      inFlight.delete(p);
      if (queues.get(resourceId) === p) queues.delete(resourceId);
    });
  };

  const table: { [N in UpTopicName]: (resourceId: number, message: BridgeMessage<N>) => Promise<void> } = {
    status: (resourceId, message) => bridgeStatus(ctx, resourceId, message),
    state: (resourceId, message) => relayState(ctx, resourceId, message),
    inputs: (resourceId, message) => bridgeInputs(ctx, resourceId, message),
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
      // The display lines as the HTTP bridge API sends them: an agent's LCD shows them.
      if (reply)
        await broker.publish(resourceId, 'access/reply', { ...reply, ...(await displayLines(ctx, reply)) });
    },
    'update/progress': (resourceId, message) => recordUpdateProgress(ctx, resourceId, message),
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
        await markBridgeOnline(ctx, resourceId);
      });
    },
    reconcile(resourceId, work) {
      track(`reconcile-${resourceId}`, work);
    },
    markOffline(resourceId, release) {
      track(resourceId, async () => {
        if (release && !(await release())) return;
        await markBridgesOffline(ctx, [resourceId]);
      });
    },
    async settle() {
      await Promise.all([...inFlight]);
    },
  };
}
