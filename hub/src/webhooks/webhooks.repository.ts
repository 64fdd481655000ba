import { sql } from 'kysely';
import { type Db, firstWhere, qualified, updateWhere } from '../db/crud.js';
import type { SendResult } from './delivery.js';

/**
 * The webhook tables' queries (webhooks, webhook_events, webhook_deliveries, webhook_attempts),
 * outside the outbox's writes (db/outbox.ts). Time stamps are ISO strings the caller takes from
 * its clock; transactions are the caller's (pass the transaction as `db`).
 */

// Webhooks.

/** A webhook's state becomes `to` when it is one of `from` (a state set by hand stays). */
export async function moveWebhookState(db: Db, webhookId: number, from: string[], to: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ state: to })
    .where('id', '=', webhookId)
    .where('state', 'in', from)
    .execute();
}

/** A delivery succeeded: the webhook's run of failures ends. */
export async function clearWebhookFailures(db: Db, webhookId: number): Promise<void> {
  await updateWhere(db, 'webhooks', { id: webhookId }, { consecutiveFailures: 0, failingSince: null });
}

/**
 * A delivery failed: one more failure in a row, failing since `failingSince`. Answers the new
 * count (undefined when the webhook is gone).
 */
export async function countWebhookFailure(
  db: Db,
  webhookId: number,
  failingSince: string,
): Promise<number | undefined> {
  const row = await db
    .updateTable('webhooks')
    .set({ consecutiveFailures: sql`"consecutiveFailures" + 1`, failingSince })
    .where('id', '=', webhookId)
    .returning(['consecutiveFailures'])
    .executeTakeFirst();
  return row?.consecutiveFailures;
}

// The queue: deliveries of events.

/**
 * The due head deliveries (the oldest pending one of each active or failing webhook) whose
 * lease is free, soonest due first.
 */
function dueHeadsQuery(db: Db, at: string) {
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

export interface QueueHead {
  id: number;
  webhook: number;
}

/** The due head deliveries (see dueHeadsQuery), read without locks (SQLite: one hub). */
export function dueHeads(db: Db, at: string): Promise<QueueHead[]> {
  return dueHeadsQuery(db, at).execute();
}

/**
 * PostgreSQL, inside the claim's transaction: the due heads of webhooks none of whose pending
 * deliveries is leased and that are not in `busy`, locked FOR UPDATE OF d SKIP LOCKED, and
 * their webhooks' rows FOR NO KEY UPDATE SKIP LOCKED (event inserts, which reference the
 * webhook, still go through): while one hub claims for a webhook, the others pass it over.
 */
export function lockDueHeads(trx: Db, at: string, busy: number[]): Promise<QueueHead[]> {
  let query = dueHeadsQuery(trx, at).where(({ not, exists, selectFrom }) =>
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
  return query.modifyEnd(sql`for update of d skip locked for no key update of w skip locked`).execute();
}

/** The webhooks among `webhookIds` with a pending delivery other than `exceptIds` leased at `at`. */
export async function webhooksWithLease(
  db: Db,
  webhookIds: number[],
  exceptIds: number[],
  at: string,
): Promise<number[]> {
  if (webhookIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('webhook')
    .where('webhook', 'in', webhookIds)
    .where('state', '=', 'pending')
    .where('leaseUntil', '>=', at)
    .where('id', 'not in', exceptIds)
    .execute();
  return rows.map((r) => r.webhook);
}

/** Leases the deliveries until `lease` (the claim holds their rows locked). */
export async function leaseDeliveries(db: Db, ids: number[], lease: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('webhook_deliveries').set({ leaseUntil: lease }).where('id', 'in', ids).execute();
}

/**
 * Leases one pending delivery until `lease` if its lease is free at `at`: a conditional update
 * only one claimant can win. True when this one won.
 */
export async function leaseDelivery(db: Db, id: number, at: string, lease: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ leaseUntil: lease })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', at)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The lease goes; the delivery waits for the next pass. */
export async function releaseDelivery(db: Db, id: number): Promise<void> {
  await updateWhere(db, 'webhook_deliveries', { id }, { leaseUntil: null });
}

/** What the worker needs to send one delivery: its attempts, the webhook and the event. */
export function deliveryToSend(db: Db, id: number) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook')
    .innerJoin('webhook_events as e', 'e.id', 'd.event')
    .select([
      'd.attempts',
      'w.urlEncrypted',
      'w.state as webhookState',
      ...qualified('w', ['secretEncrypted', 'failingSince']),
      'e.id as eventId',
      ...qualified('e', ['type', 'createdAt', 'details']),
    ])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** A queued delivery was delivered: out of the queue, its lease gone. */
export async function markDelivered(
  db: Db,
  id: number,
  attempts: number,
  deliveredAt: string,
): Promise<void> {
  await updateWhere(
    db,
    'webhook_deliveries',
    { id },
    { state: 'delivered', attempts, deliveredAt, nextAttemptAt: null, leaseUntil: null },
  );
}

/** A queued delivery failed: tried again at `nextAttemptAt`, its lease gone. */
export async function scheduleRetry(
  db: Db,
  id: number,
  attempts: number,
  nextAttemptAt: string,
): Promise<void> {
  await updateWhere(db, 'webhook_deliveries', { id }, { attempts, nextAttemptAt, leaseUntil: null });
}

/** The webhook's pending deliveries (those up to `upToId` when given) are due at `at`. */
export async function makeQueueDue(db: Db, webhookId: number, at: string, upToId?: number): Promise<void> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ nextAttemptAt: at })
    .where('webhook', '=', webhookId)
    .where('state', '=', 'pending');
  if (upToId !== undefined) query = query.where('id', '<=', upToId);
  await query.execute();
}

/** One delivery of the webhook, or undefined. */
export function findDelivery(db: Db, webhookId: number, id: number) {
  return firstWhere(db, 'webhook_deliveries', { id, webhook: webhookId });
}

// Test events (sent at once, never queued).

/**
 * A `test` event and its delivery to one webhook. The delivery's state 'test' keeps the
 * worker's queue away from it until its attempt is recorded (finishDelivery).
 */
export async function insertTestDelivery(
  db: Db,
  webhook: { id: number; account: number },
  details: string,
  createdAt: string,
): Promise<{ eventId: number; deliveryId: number }> {
  const event = await db
    .insertInto('webhook_events')
    .values({ account: webhook.account, type: 'test', details, createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  const delivery = await db
    .insertInto('webhook_deliveries')
    .values({ account: webhook.account, webhook: webhook.id, event: event.id, state: 'test', createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { eventId: event.id, deliveryId: delivery.id };
}

/** A delivery sent once outside the queue (a test) ends: delivered or failed. */
export async function finishDelivery(
  db: Db,
  id: number,
  outcome: { ok: boolean; attempts: number; at: string },
): Promise<void> {
  await updateWhere(
    db,
    'webhook_deliveries',
    { id },
    {
      state: outcome.ok ? 'delivered' : 'failed',
      attempts: outcome.attempts,
      deliveredAt: outcome.ok ? outcome.at : null,
    },
  );
}

// Attempts.

/** Records one attempt's answer (its error cut to 1000 characters). */
export async function insertAttempt(
  db: Db,
  deliveryId: number,
  at: string,
  result: SendResult,
): Promise<void> {
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

/** The attempts of these deliveries, oldest first. */
export function attemptsOf(db: Db, deliveryIds: number[]) {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery', 'in', deliveryIds)
    .orderBy('id')
    .execute();
}

// The events list.

const deliveryColumns = [
  'd.id as deliveryId',
  'd.state',
  'd.nextAttemptAt',
  'd.deliveredAt',
  'e.id',
  'e.type',
  'e.createdAt',
  'e.details',
] as const;

/** A delivery with its event, as the events list reads it. */
export interface DeliveryRow {
  deliveryId: number;
  state: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  id: number;
  type: string;
  createdAt: string;
  details: string;
}

/** One delivery with its event (none when it does not exist). */
export function deliveryWithEvent(db: Db, deliveryId: number): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event')
    .select(deliveryColumns)
    .where('d.id', '=', deliveryId)
    .execute();
}

export interface DeliveryFilter {
  type?: string;
  /** 'failed' also takes tests that never finished (state 'test'). */
  state?: 'pending' | 'delivered' | 'failed';
  limit: number;
  offset: number;
}

/** A page of one webhook's deliveries with their events, newest first, and the total. */
export async function pageOfDeliveries(
  db: Db,
  webhookId: number,
  filter: DeliveryFilter,
): Promise<{ total: number; rows: DeliveryRow[] }> {
  let base = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event')
    .where('d.webhook', '=', webhookId);
  if (filter.type) base = base.where('e.type', '=', filter.type);
  if (filter.state === 'failed') base = base.where('d.state', 'in', ['failed', 'test']);
  else if (filter.state) base = base.where('d.state', '=', filter.state);
  const [{ total }] = await base.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await base
    .select(deliveryColumns)
    .orderBy('d.id', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();
  return { total: Number(total), rows };
}

// Retention.

/** Forgets finished deliveries created before `cutoff`, then events before it no delivery references. */
export async function deleteExpired(db: Db, cutoff: string): Promise<void> {
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
          selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event', '=', 'webhook_events.id'),
        ),
      ),
    )
    .execute();
}
