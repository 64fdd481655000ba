import { randomUUID } from 'node:crypto';
import type { CardRead, CardReader } from '@makerspace/hardware';
import { type AccessReply, type DenyReason, type Logger, offlineKeyHash } from '@makerspace/shared/agent';
import type { BridgeConfigStore } from './bridge-config.store.js';
import type { FeedbackFeature } from './feedback.feature.js';
import type { HubLink } from './hub-link.js';
import type { LogQueue } from './log-queue.js';
import type { RelayController } from './relay.controller.js';

/** What a tap led to; the `tap` command prints it. */
export interface TapOutcome {
  result: 'allowed' | 'denied' | 'message';
  /** Decided by the agent from its offline keys because the hub did not answer. */
  offline: boolean;
  action: 'pulsed' | 'sessionStarted' | 'sessionStopped' | 'takeover' | 'none';
  sessionId?: string | null;
  reason?: DenyReason | null;
  messages?: string[];
  error?: string;
}

export interface CardAccessOptions {
  link: HubLink;
  relay: RelayController;
  queue: LogQueue;
  bridgeConfig: BridgeConfigStore;
  reader: CardReader | null;
  /** Beeps the decision once the relay has acted; optional. */
  feedback?: Pick<FeedbackFeature, 'signal'> | null;
  /** Shows the decision (the hub's lines) on the reader's display; optional. */
  display?: { showTap(outcome: TapOutcome): void } | null;
  logger: Logger;
  pulseSeconds: () => number;
  accessTimeoutMs: number;
  /** offlineKeySecret of this bridge's API key: offline keys are hashed with it. */
  offlineKeySecret: Buffer;
  now?: () => Date;
}

/**
 * Card taps: asks the hub (`access`, answered on `access/reply`) and acts on the answer. Doors
 * pulse on allowed. Machines start a session on allowed; the same member (or card) tapping again
 * stops it; another allowed member takes it over; denied never touches the running session.
 *
 * When the hub is not connected or does not answer in time, the agent decides from the saved
 * bridge config: a card whose offlineKeyHash is listed is allowed (machines for at most
 * maxOfflineUsage seconds), anything else is denied, and the decision is queued as a log with
 * `offline: true` for the hub to store later.
 */
export class CardAccessFeature {
  private readonly waiting = new Map<string, (reply: AccessReply) => void>();
  private readonly now: () => Date;

  constructor(private readonly options: CardAccessOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async start(): Promise<void> {
    const { link, reader, logger } = this.options;
    link.handle('access/reply', (reply) => {
      const resolve = this.waiting.get(reply.id);
      if (resolve) resolve(reply);
      else logger.debug({ requestId: reply.id }, 'access reply for no waiting tap (late or repeated)');
    });
    await reader?.start((card) => {
      this.handleCard(card).catch((err) => logger.error({ err: err.message }, 'card tap failed'));
    });
  }

  async stop(): Promise<void> {
    await this.options.reader?.stop();
    this.waiting.clear();
  }

  /** One tap, from the card reader or the tap socket. */
  async handleCard(card: CardRead): Promise<TapOutcome> {
    const { logger } = this.options;
    logger.info({ type: card.type }, 'card tapped');
    // One id names the tap everywhere: the access request, and the log of an offline decision, so
    // a hub that answers late and the offline log it receives later make one log, not two.
    const tap = { id: randomUUID(), at: this.now().toISOString() };
    const reply = await this.askHub(card, tap);
    const outcome = reply ? await this.actOnline(card, reply) : await this.actOffline(card, tap);
    logger.info({ ...outcome, type: card.type }, 'card tap decided');
    // After the relay has acted, and not awaited: the person at the reader hears the decision.
    this.options.feedback?.signal(outcome.result);
    this.options.display?.showTap(outcome);
    return outcome;
  }

  private async askHub(card: CardRead, tap: { id: string; at: string }): Promise<AccessReply | null> {
    const { link, relay, logger } = this.options;
    if (!link.connected) return null;
    const id = tap.id;
    const session = relay.controlType === 'machine' ? relay.currentSession : null;
    let timer: NodeJS.Timeout | undefined;
    // The timeout covers the publish too: a QoS 1 publish on a dying connection may never settle.
    const reply = new Promise<AccessReply | null>((resolve) => {
      this.waiting.set(id, resolve);
      timer = setTimeout(() => {
        logger.warn({ requestId: id }, 'the hub did not answer the tap in time; deciding offline');
        resolve(null);
      }, this.options.accessTimeoutMs);
      link
        .publish('access', {
          id,
          tapId: tap.id,
          tappedAt: tap.at,
          keys: [card],
          currentSession: session ? { id: session.id } : null,
        })
        .catch((err) => {
          logger.warn({ err: (err as Error).message }, 'access request not sent; deciding offline');
          resolve(null);
        });
    });
    try {
      return await reply;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  private async actOnline(card: CardRead, reply: AccessReply): Promise<TapOutcome> {
    const { relay } = this.options;
    const base = {
      result: reply.type,
      offline: false,
      reason: reply.reason ?? null,
      messages: reply.messages,
    };
    if (reply.type !== 'allowed') return { ...base, action: 'none' };
    if (relay.controlType === 'door') {
      const state = await relay.pulse(this.options.pulseSeconds(), reply.sessionId ?? null);
      return { ...base, action: 'pulsed', sessionId: state.sessionId };
    }
    const current = relay.currentSession;
    const keyHash = offlineKeyHash(card, this.options.offlineKeySecret);
    const sameSession =
      current !== null &&
      (reply.stopped === true ||
        (reply.sessionId !== undefined && reply.sessionId === current.id) ||
        (reply.member != null && reply.member.id === current.memberId) ||
        current.keyHash === keyHash);
    if (current && sameSession) {
      await relay.endSession(current.id, 'normal');
      return { ...base, action: 'sessionStopped', sessionId: current.id };
    }
    if (reply.stopped === true) return { ...base, action: 'none' };
    const sessionId = reply.sessionId ?? randomUUID();
    // The hub allowed it from the inputs it last heard of; an interlock that opened since refuses,
    // and the session the hub opened ends at once.
    const refusal = current ? null : relay.startRefusal();
    if (refusal !== null) {
      if (reply.sessionId !== undefined)
        await this.options.queue.append({
          kind: 'stop',
          id: randomUUID(),
          sessionId: reply.sessionId,
          stopType: 'interlock',
          stoppedAt: this.now().toISOString(),
        });
      return { ...base, result: 'denied', reason: 'interlock', messages: [refusal], action: 'none' };
    }
    await relay.startSession({
      id: sessionId,
      memberId: reply.member?.id ?? null,
      keyHash,
      maxDuration: reply.maxDuration ?? null,
    });
    return { ...base, action: current ? 'takeover' : 'sessionStarted', sessionId };
  }

  /**
   * Every decision taken here is appended to the log queue (fsynced) before the relay moves: after
   * a crash at any moment there was either no pulse, or a pulse whose log reaches the hub later.
   */
  private async actOffline(card: CardRead, tap: { id: string; at: string }): Promise<TapOutcome> {
    const { relay, queue, bridgeConfig } = this.options;
    // Hashes of an older hub (unkeyed sha256) are not trusted: such a config lists no usable key.
    const config = bridgeConfig.current?.offlineKeyScheme === 'hmac-sha256' ? bridgeConfig.current : null;
    const keyHash = offlineKeyHash(card, this.options.offlineKeySecret);
    const createdAt = tap.at;
    const id = tap.id;
    const keys = [card];
    const deny = async (reason: DenyReason | null, notes?: string): Promise<TapOutcome> => {
      await queue.append({ kind: 'log', id, type: 'denied', createdAt, keys, reason, offline: true, notes });
      return { result: 'denied', offline: true, action: 'none', reason };
    };
    if (!config?.offlineKeys.includes(keyHash)) {
      return deny('unknownKey', config ? undefined : 'no bridge config received from the hub yet');
    }
    if (relay.controlType === 'door') {
      await queue.append({
        kind: 'log',
        id,
        type: 'allowed',
        createdAt,
        stoppedAt: createdAt,
        stopType: 'normal',
        keys,
        offline: true,
      });
      await relay.pulse(this.options.pulseSeconds(), null);
      return { result: 'allowed', offline: true, action: 'pulsed', sessionId: null };
    }
    const current = relay.currentSession;
    if (current && current.keyHash === keyHash) {
      await relay.endSession(current.id, 'normal');
      return { result: 'allowed', offline: true, action: 'sessionStopped', sessionId: current.id };
    }
    if (config.maxOfflineUsage <= 0) return deny(null, 'maxOfflineUsage is 0: machines do not start offline');
    const refusal = current ? null : relay.startRefusal();
    if (refusal !== null) return deny('interlock', refusal);
    // The log's own id names the session, so the hub can find the log when the stop item comes.
    await queue.append({ kind: 'log', id, type: 'allowed', createdAt, sessionId: id, keys, offline: true });
    await relay.startSession({ id, keyHash, maxDuration: config.maxOfflineUsage, offline: true });
    return {
      result: 'allowed',
      offline: true,
      action: current ? 'takeover' : 'sessionStarted',
      sessionId: id,
    };
  }
}
