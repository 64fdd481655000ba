import type { HubMetrics } from '../observability/metrics.js';
import type { Logger } from '@makerspace/shared';
import type { Clock, WebhookSettings } from '../context.js';
import type { Db } from '../db/crud.js';
import type { DialectName } from '../db/database.js';
import type { TokenBox } from '../secrets.js';
import { type SendResult, sendWebhook, signature, standardWebhookHeaders } from './delivery.js';
import { checkWebhookUrl, UnsafeUrlError } from './url-safety.js';
import { OutboxPump } from '../kernel/outbox-pump.js';
import {
  clearWebhookFailures,
  countWebhookFailure,
  deleteExpired,
  deliveryToSend,
  dueHeads,
  finishDelivery,
  insertAttempt,
  insertTestDelivery,
  leaseDeliveries,
  leaseDelivery,
  lockDueHeads,
  markDelivered,
  moveWebhookState,
  type QueueHead,
  releaseDelivery,
  scheduleRetry,
  webhooksWithLease,
} from './webhooks.repository.js';

export type { WebhookSettings };

/** Production delivery timing (the WebhookSettings port, context.ts). */
export const defaultWebhookSettings: WebhookSettings = {
  allowInsecure: false,
  timeoutMs: 10_000,
  pollIntervalMs: 1_000,
  retryBaseMs: 10_000,
  retryMaxMs: 60 * 60_000,
  failingAfter: 3,
  deactivateAfterMs: 24 * 60 * 60_000,
  retentionMs: 30 * 24 * 60 * 60_000,
};

/** Delay before the next attempt after `attempts` failures: exponential, capped, half of it random. */
export function retryDelay(attempts: number, s: WebhookSettings, random = Math.random): number {
  const full = Math.min(s.retryMaxMs, s.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

/** The clock's time `plusMs` from now, as stored. */
const iso = (clock: Clock, plusMs = 0) => new Date(clock.now().getTime() + plusMs).toISOString();

export interface AttemptTarget {
  deliveryId: number;
  /** The webhook's URL, sealed as stored (opened here, just before the call). */
  urlEncrypted: string;
  secretEncrypted: string;
  event: { id: number; type: string; createdAt: string; details: string };
}

/** Builds, signs and sends one attempt of a delivery (checking the URL again first). */
export async function attemptDelivery(
  target: AttemptTarget,
  deps: { tokens: TokenBox; settings: WebhookSettings; clock: Clock; signal?: AbortSignal },
): Promise<SendResult> {
  const { event } = target;
  const body = `{"id":${event.id},"type":${JSON.stringify(event.type)},"createdAt":${JSON.stringify(
    event.createdAt,
  )},"details":${event.details}}`;
  let checked: Awaited<ReturnType<typeof checkWebhookUrl>>;
  try {
    checked = await checkWebhookUrl(deps.tokens.open(target.urlEncrypted), {
      allowInsecure: deps.settings.allowInsecure,
    });
  } catch (err) {
    const error = err instanceof UnsafeUrlError ? `refused: ${err.message}` : String(err);
    return { ok: false, statusCode: null, durationMs: 0, error, responseExcerpt: null };
  }
  const timestamp = String(Math.floor(deps.clock.now().getTime() / 1000));
  const secret = deps.tokens.open(target.secretEncrypted);
  return sendWebhook({
    target: checked,
    body,
    timeoutMs: deps.settings.timeoutMs,
    signal: deps.signal,
    allowLoopback: deps.settings.allowInsecure,
    headers: {
      // The delivery id names this message to this webhook; retries repeat it (idempotency).
      ...standardWebhookHeaders(secret, `msg_${target.deliveryId}`, timestamp, body),
      'x-makerspace-event': event.type,
      'x-makerspace-delivery': String(target.deliveryId),
      'x-makerspace-timestamp': timestamp,
      'x-makerspace-signature': signature(secret, timestamp, body),
    },
  });
}

export interface WorkerDeps {
  db: Db;
  /** How deliveries are claimed: see WebhookWorker.claim. */
  dialect: DialectName;
  tokens: TokenBox;
  logger: Logger;
  settings: WebhookSettings;
  /** Times the queue: when deliveries are due, leases, retries, attempts' stamps, retention. */
  clock: Clock;
  /** Counts attempts by outcome (makerspace_webhook_deliveries_total). */
  metrics?: HubMetrics;
}

/**
 * Delivers the outbox. Per webhook strictly in order and one at a time: only the oldest pending
 * delivery of a webhook is ever attempted, and the next waits until it is delivered. Webhooks
 * are independent of each other, and nothing here runs inside an API request.
 * Several hubs on one PostgreSQL database each run a worker: a hub claims its deliveries with
 * SELECT ... FOR UPDATE SKIP LOCKED and a lease (`leaseUntil`) in one short transaction, and the
 * lease keeps the others off a delivery until it is recorded, or until it ends when the hub died.
 */
export class WebhookWorker {
  private readonly inFlight = new Map<number, { controller: AbortController; done: Promise<void> }>();
  private readonly pump = new OutboxPump(
    () => this.dispatch(),
    (err) => this.deps.logger.error({ err }, 'webhooks: reading the outbox failed'),
  );
  private lastPrune = 0;

  constructor(private readonly deps: WorkerDeps) {}

  start(): void {
    this.pump.start(this.deps.settings.pollIntervalMs);
  }

  /** Stops polling and aborts attempts in flight; they stay queued (not counted) for next time. */
  async stop(): Promise<void> {
    const stopping = this.pump.stop();
    for (const { controller } of this.inFlight.values()) controller.abort();
    await stopping;
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  /** Reads the outbox now (coalesced: a wake during a pass runs one more pass). */
  wake(): void {
    this.pump.wake();
  }

  private get stopped(): boolean {
    return this.pump.stopped;
  }

  /** Forgets finished deliveries and unreferenced events past the retention time, hourly. */
  private async prune(): Promise<void> {
    const { db, settings, clock } = this.deps;
    const now = clock.now().getTime();
    if (now - this.lastPrune < 60 * 60_000) return;
    this.lastPrune = now;
    await deleteExpired(db, iso(clock, -settings.retentionMs));
  }

  /**
   * Claims due head deliveries for this hub and answers them; each is leased until `lease`.
   *
   * PostgreSQL (several hubs may share the outbox): one short transaction selects the heads with
   * FOR UPDATE OF d SKIP LOCKED (and their webhooks' rows FOR NO KEY UPDATE SKIP LOCKED), so a
   * row another hub is claiming (or recording) right now is passed over rather than waited for,
   * sets the lease on the rows it got, and commits. A row
   * whose lease another hub committed meanwhile is re-checked by PostgreSQL when locked and
   * dropped. Webhooks this hub is sending to are left out, and so is a webhook another pending
   * delivery of which is leased: ids come from a sequence and are not in commit order, so a
   * delivery committed late can become the head while a later one is being sent.
   *
   * SQLite (one hub, one connection, no FOR UPDATE): each head is taken with a conditional
   * update of its lease, which only one claimant can win.
   */
  private async claim(at: string, lease: string): Promise<QueueHead[]> {
    const { db, dialect } = this.deps;
    const busy = [...this.inFlight.keys()];
    if (dialect === 'postgres') {
      return db.transaction().execute(async (trx) => {
        const locked = await lockDueHeads(trx, at, busy);
        // A claim committed by another hub after this statement's snapshot but before its locks
        // were taken is visible to a new statement: drop the webhooks it leased.
        const taken = new Set(
          await webhooksWithLease(
            trx,
            locked.map((h) => h.webhook),
            locked.map((h) => h.id),
            at,
          ),
        );
        const heads = locked.filter((h) => !taken.has(h.webhook));
        await leaseDeliveries(
          trx,
          heads.map((h) => h.id),
          lease,
        );
        return heads;
      });
    }
    const heads = await dueHeads(db, at);
    const claimed: QueueHead[] = [];
    for (const head of heads) {
      if (this.stopped) break;
      if (this.inFlight.has(head.webhook)) continue;
      if (await leaseDelivery(db, head.id, at, lease)) claimed.push(head);
    }
    return claimed;
  }

  private async dispatch(): Promise<void> {
    const { settings, clock } = this.deps;
    await this.prune();
    if (this.stopped) return;
    const at = iso(clock);
    const lease = iso(clock, settings.timeoutMs + 30_000);
    const claimed = await this.claim(at, lease);
    for (const head of claimed) {
      if (this.stopped || this.inFlight.has(head.webhook)) {
        // Claimed but not sent (the hub is closing): the lease goes, the delivery waits.
        await this.release(head.id).catch(() => {});
        continue;
      }
      const controller = new AbortController();
      const done = this.deliver(head.id, head.webhook, controller.signal)
        .catch((err) => {
          if (!this.stopped) this.deps.logger.error({ err, delivery: head.id }, 'webhooks: delivery failed');
        })
        .finally(() => {
          this.inFlight.delete(head.webhook);
        });
      this.inFlight.set(head.webhook, { controller, done });
    }
  }

  private release(deliveryId: number) {
    return releaseDelivery(this.deps.db, deliveryId);
  }

  private async deliver(deliveryId: number, webhookId: number, signal: AbortSignal): Promise<void> {
    const { db, settings, clock } = this.deps;
    const row = await deliveryToSend(db, deliveryId);
    if (!row) return;
    const release = () => this.release(deliveryId);
    if (row.webhookState !== 'active' && row.webhookState !== 'failing') {
      await release();
      return;
    }
    const at = iso(clock);
    const result = await attemptDelivery(
      {
        deliveryId,
        urlEncrypted: row.urlEncrypted,
        secretEncrypted: row.secretEncrypted,
        event: { id: row.eventId, type: row.type, createdAt: row.createdAt, details: row.details },
      },
      { tokens: this.deps.tokens, settings, clock, signal },
    );
    if (signal.aborted) {
      // The hub is closing: this attempt does not count; the delivery waits for the next start.
      await release().catch(() => {});
      return;
    }
    const attempts = row.attempts + 1;
    this.deps.metrics?.webhookDeliveries.inc({ outcome: result.ok ? 'delivered' : 'failed' });
    await db.transaction().execute(async (trx) => {
      await insertAttempt(trx, deliveryId, at, result);
      if (result.ok) {
        await markDelivered(trx, deliveryId, attempts, iso(clock));
        await clearWebhookFailures(trx, webhookId);
        await moveWebhookState(trx, webhookId, ['failing'], 'active');
        return;
      }
      const delay = retryDelay(attempts, settings);
      await scheduleRetry(trx, deliveryId, attempts, iso(clock, delay));
      const failingSince = row.failingSince ?? at;
      const failures = await countWebhookFailure(trx, webhookId, failingSince);
      if (failures === undefined) return;
      if (clock.now().getTime() - Date.parse(failingSince) >= settings.deactivateAfterMs) {
        await moveWebhookState(trx, webhookId, ['active', 'failing'], 'deactivated');
        this.deps.logger.warn({ webhook: webhookId }, 'webhooks: deactivated after failing for too long');
      } else if (failures >= settings.failingAfter) {
        await moveWebhookState(trx, webhookId, ['active'], 'failing');
      }
      this.pump.wakeIn(delay + 5);
    });
    // The next queued event of this webhook may go now.
    if (result.ok) setImmediate(() => this.wake());
  }
}

/**
 * Sends a `test` event to one webhook at once, outside its queue (an admin checking a receiver
 * wants the answer now, also while the webhook is paused or deactivated). It is tried once and
 * never retried; the answer is recorded like any attempt.
 */
export async function sendTestEvent(
  db: Db,
  deps: { tokens: TokenBox; settings: WebhookSettings; clock: Clock },
  webhook: { id: number; account: number; urlEncrypted: string; secretEncrypted: string },
  details: { message: string; createdBy: number },
): Promise<number> {
  const createdAt = iso(deps.clock);
  const { eventId, deliveryId } = await db
    .transaction()
    .execute((trx) => insertTestDelivery(trx, webhook, JSON.stringify(details), createdAt));
  const result = await attemptDelivery(
    {
      deliveryId,
      urlEncrypted: webhook.urlEncrypted,
      secretEncrypted: webhook.secretEncrypted,
      event: { id: eventId, type: 'test', createdAt, details: JSON.stringify(details) },
    },
    deps,
  );
  await db.transaction().execute(async (trx) => {
    await insertAttempt(trx, deliveryId, createdAt, result);
    await finishDelivery(trx, deliveryId, { ok: result.ok, attempts: 1, at: iso(deps.clock) });
  });
  return deliveryId;
}
