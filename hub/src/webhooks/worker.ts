import type { HubMetrics } from '../observability/metrics.js';
import type { Logger } from '@makerspace/shared';
import { sql } from 'kysely';
import type { Db } from '../db/crud.js';
import type { DialectName } from '../db/database.js';
import type { TokenBox } from '../secrets.js';
import { type SendResult, sendWebhook, signature, standardWebhookHeaders } from './delivery.js';
import { checkWebhookUrl, UnsafeUrlError } from './url-safety.js';

/** How deliveries are timed. The defaults are for production; tests shorten them via settings. */
export interface WebhookSettings {
  /** HUB_WEBHOOK_ALLOW_INSECURE: allow http:// and loopback receivers. */
  allowInsecure: boolean;
  /** A receiver must answer completely within this time. */
  timeoutMs: number;
  /** The outbox is read this often (and at once after a commit that emitted events). */
  pollIntervalMs: number;
  /** First retry delay; it doubles per failed attempt up to retryMaxMs, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Failed attempts in a row after which the webhook shows as `failing`. */
  failingAfter: number;
  /** A webhook that has failed for this long is `deactivated`; later events queue. */
  deactivateAfterMs: number;
  /** Finished deliveries (and events no webhook still waits for) are kept this long. */
  retentionMs: number;
}

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

const iso = (ms: number) => new Date(ms).toISOString();

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
  deps: { tokens: TokenBox; settings: WebhookSettings; signal?: AbortSignal },
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
  const timestamp = String(Math.floor(Date.now() / 1000));
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

export async function recordAttempt(db: Db, deliveryId: number, at: string, result: SendResult) {
  await db
    .insertInto('webhook_attempts')
    .values({
      delivery: deliveryId,
      at,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error?.slice(0, 1000) ?? null,
      responseExcerpt: result.responseExcerpt,
    })
    .execute();
}

/** A webhook's state becomes `to` when it is one of `from` (a state set by hand stays). */
function moveState(db: Db, webhookId: number, from: string[], to: string) {
  return db
    .updateTable('webhooks')
    .set({ state: to })
    .where('id', '=', webhookId)
    .where('state', 'in', from)
    .execute();
}

export interface WorkerDeps {
  db: Db;
  /** How deliveries are claimed: see WebhookWorker.claim. */
  dialect: DialectName;
  tokens: TokenBox;
  logger: Logger;
  settings: WebhookSettings;
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
  private timer: NodeJS.Timeout | null = null;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Map<number, { controller: AbortController; done: Promise<void> }>();
  private running = false;
  private again = false;
  private stopped = true;
  private ticking: Promise<void> = Promise.resolve();
  private lastPrune = 0;

  constructor(private readonly deps: WorkerDeps) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.deps.settings.pollIntervalMs);
    this.timer.unref();
    this.wake();
  }

  /** Stops polling and aborts attempts in flight; they stay queued (not counted) for next time. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    for (const { controller } of this.inFlight.values()) controller.abort();
    await this.ticking;
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  /** Reads the outbox now (coalesced: a wake during a pass runs one more pass). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.ticking = (async () => {
      do {
        this.again = false;
        try {
          await this.dispatch();
        } catch (err) {
          if (!this.stopped) this.deps.logger.error({ err }, 'webhooks: reading the outbox failed');
        }
      } while (this.again && !this.stopped);
      this.running = false;
    })();
  }

  /** Forgets finished deliveries and unreferenced events past the retention time, hourly. */
  private async prune(): Promise<void> {
    if (Date.now() - this.lastPrune < 60 * 60_000) return;
    this.lastPrune = Date.now();
    const { db, settings } = this.deps;
    const cutoff = iso(Date.now() - settings.retentionMs);
    await db
      .deleteFrom('webhook_deliveries')
      .where('state', '!=', 'pending')
      .where('createdAt', '<', cutoff)
      .execute();
    await db
      .deleteFrom('webhook_events')
      .where('createdAt', '<', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as d')
              .select('d.id')
              .whereRef('d.event', '=', 'webhook_events.id'),
          ),
        ),
      )
      .execute();
  }

  /**
   * The due head deliveries (the oldest pending one of each active or failing webhook) whose
   * lease is free, soonest due first.
   */
  private dueHeads(db: Db, at: string) {
    return db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook')
      .select(['d.id', 'd.webhook'])
      .where('d.state', '=', 'pending')
      .where('w.state', 'in', ['active', 'failing'])
      .where('d.nextAttemptAt', '<=', at)
      .where((eb) => eb.or([eb('d.leaseUntil', 'is', null), eb('d.leaseUntil', '<', at)]))
      .where(
        'd.id',
        '=',
        sql<number>`(select min(d2.id) from webhook_deliveries d2 where d2.webhook = d.webhook and d2.state = 'pending')`,
      )
      .orderBy('d.nextAttemptAt')
      .limit(100);
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
  private async claim(at: string, lease: string): Promise<{ id: number; webhook: number }[]> {
    const { db, dialect } = this.deps;
    const busy = [...this.inFlight.keys()];
    if (dialect === 'postgres') {
      return db.transaction().execute(async (trx) => {
        let query = this.dueHeads(trx, at).where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as d3')
                .select('d3.id')
                .whereRef('d3.webhook', '=', 'd.webhook')
                .where('d3.state', '=', 'pending')
                .where('d3.leaseUntil', '>=', at),
            ),
          ),
        );
        if (busy.length > 0) query = query.where('d.webhook', 'not in', busy);
        // The webhook's row too (NO KEY UPDATE: event inserts, which reference it, still go
        // through): while one hub claims for a webhook, the others pass that webhook over.
        const locked = await query
          .modifyEnd(sql`for update of d skip locked for no key update of w skip locked`)
          .execute();
        // A claim committed by another hub after this statement's snapshot but before its locks
        // were taken is visible to a new statement: drop the webhooks it leased.
        const lockedIds = locked.map((h) => h.id);
        const leased =
          locked.length === 0
            ? []
            : await trx
                .selectFrom('webhook_deliveries')
                .select('webhook')
                .where(
                  'webhook',
                  'in',
                  locked.map((h) => h.webhook),
                )
                .where('state', '=', 'pending')
                .where('leaseUntil', '>=', at)
                .where('id', 'not in', lockedIds)
                .execute();
        const taken = new Set(leased.map((r) => r.webhook));
        const heads = locked.filter((h) => !taken.has(h.webhook));
        const ids = heads.map((h) => h.id);
        if (ids.length > 0) {
          await trx
            .updateTable('webhook_deliveries')
            .set({ leaseUntil: lease })
            .where('id', 'in', ids)
            .execute();
        }
        return heads;
      });
    }
    const heads = await this.dueHeads(db, at).execute();
    const claimed: { id: number; webhook: number }[] = [];
    for (const head of heads) {
      if (this.stopped) break;
      if (this.inFlight.has(head.webhook)) continue;
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ leaseUntil: lease })
        .where('id', '=', head.id)
        .where('state', '=', 'pending')
        .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', at)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) claimed.push(head);
    }
    return claimed;
  }

  private async dispatch(): Promise<void> {
    const { settings } = this.deps;
    await this.prune();
    if (this.stopped) return;
    const at = iso(Date.now());
    const lease = iso(Date.now() + settings.timeoutMs + 30_000);
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
    return this.deps.db
      .updateTable('webhook_deliveries')
      .set({ leaseUntil: null })
      .where('id', '=', deliveryId)
      .execute();
  }

  private async deliver(deliveryId: number, webhookId: number, signal: AbortSignal): Promise<void> {
    const { db, settings } = this.deps;
    const row = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook')
      .innerJoin('webhook_events as e', 'e.id', 'd.event')
      .select([
        'd.attempts',
        'w.urlEncrypted',
        'w.state as webhookState',
        'w.secretEncrypted',
        'w.failingSince',
        'e.id as eventId',
        'e.type',
        'e.createdAt',
        'e.details',
      ])
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
    if (!row) return;
    const release = () => this.release(deliveryId);
    if (row.webhookState !== 'active' && row.webhookState !== 'failing') {
      await release();
      return;
    }
    const startedAt = Date.now();
    const result = await attemptDelivery(
      {
        deliveryId,
        urlEncrypted: row.urlEncrypted,
        secretEncrypted: row.secretEncrypted,
        event: { id: row.eventId, type: row.type, createdAt: row.createdAt, details: row.details },
      },
      { tokens: this.deps.tokens, settings, signal },
    );
    if (signal.aborted) {
      // The hub is closing: this attempt does not count; the delivery waits for the next start.
      await release().catch(() => {});
      return;
    }
    const at = iso(startedAt);
    const attempts = row.attempts + 1;
    this.deps.metrics?.webhookDeliveries.inc({ outcome: result.ok ? 'delivered' : 'failed' });
    await db.transaction().execute(async (trx) => {
      await recordAttempt(trx, deliveryId, at, result);
      if (result.ok) {
        await trx
          .updateTable('webhook_deliveries')
          .set({
            state: 'delivered',
            attempts,
            deliveredAt: iso(Date.now()),
            nextAttemptAt: null,
            leaseUntil: null,
          })
          .where('id', '=', deliveryId)
          .execute();
        await trx
          .updateTable('webhooks')
          .set({ consecutiveFailures: 0, failingSince: null })
          .where('id', '=', webhookId)
          .execute();
        await moveState(trx, webhookId, ['failing'], 'active');
        return;
      }
      const delay = retryDelay(attempts, settings);
      await trx
        .updateTable('webhook_deliveries')
        .set({ attempts, nextAttemptAt: iso(Date.now() + delay), leaseUntil: null })
        .where('id', '=', deliveryId)
        .execute();
      const failingSince = row.failingSince ?? at;
      const hook = await trx
        .updateTable('webhooks')
        .set({ consecutiveFailures: sql`"consecutiveFailures" + 1`, failingSince })
        .where('id', '=', webhookId)
        .returning(['consecutiveFailures'])
        .executeTakeFirst();
      if (!hook) return;
      if (Date.now() - Date.parse(failingSince) >= settings.deactivateAfterMs) {
        await moveState(trx, webhookId, ['active', 'failing'], 'deactivated');
        this.deps.logger.warn({ webhook: webhookId }, 'webhooks: deactivated after failing for too long');
      } else if (hook.consecutiveFailures >= settings.failingAfter) {
        await moveState(trx, webhookId, ['active'], 'failing');
      }
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer);
        this.wake();
      }, delay + 5);
      timer.unref();
      this.retryTimers.add(timer);
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
  deps: { tokens: TokenBox; settings: WebhookSettings },
  webhook: { id: number; account: number; urlEncrypted: string; secretEncrypted: string },
  details: { message: string; createdBy: number },
): Promise<number> {
  const createdAt = iso(Date.now());
  const { eventId, deliveryId } = await db.transaction().execute(async (trx) => {
    const event = await trx
      .insertInto('webhook_events')
      .values({ account: webhook.account, type: 'test', details: JSON.stringify(details), createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    // State 'test' keeps the worker's queue away from it until the attempt below is recorded.
    const delivery = await trx
      .insertInto('webhook_deliveries')
      .values({ account: webhook.account, webhook: webhook.id, event: event.id, state: 'test', createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { eventId: event.id, deliveryId: delivery.id };
  });
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
    await recordAttempt(trx, deliveryId, createdAt, result);
    await trx
      .updateTable('webhook_deliveries')
      .set({
        state: result.ok ? 'delivered' : 'failed',
        attempts: 1,
        deliveredAt: result.ok ? iso(Date.now()) : null,
      })
      .where('id', '=', deliveryId)
      .execute();
  });
  return deliveryId;
}
