import { randomBytes } from 'node:crypto';
import type { WebhookCategory, WebhookEventRecord, WebhookRecord, WebhookState } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { parseJson, likePattern } from '../db/crud.js';
import type { WebhooksTable } from '../db/schema.js';
import type { Caller } from '../identity/caller.js';
import { notFound, unprocessable } from '../errors.js';
import { checkWebhookUrl, UnsafeUrlError, type UrlPolicy } from './url-safety.js';

export type WebhookRow = Selectable<WebhooksTable>;

export function webhookRecord(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    account: row.account,
    url: row.url,
    label: row.label,
    state: row.state as WebhookState,
    notes: row.notes,
    categories: parseJson<WebhookCategory[]>(row.categories) ?? [],
    failingSince: row.failingSince,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/**
 * A new signing secret in the Standard Webhooks form: `whsec_` and 192 random bits in base64
 * (standard alphabet, which the Standard Webhooks libraries decode).
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The URL check of url-safety.ts as the API's 422. */
export async function assertSafeUrl(url: string, policy: UrlPolicy): Promise<void> {
  try {
    await checkWebhookUrl(url, policy);
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw unprocessable(err.message, { unsafeUrl: true });
    throw err;
  }
}

/** Webhooks are for admins (the routes check); superusers see every account's. */
export function visibleWebhooks(db: Db, caller: Caller) {
  let query = db.selectFrom('webhooks');
  if (!caller.superuser) query = query.where('account', '=', caller.accountId);
  return query;
}

export async function findWebhook(db: Db, caller: Caller, id: number): Promise<WebhookRow> {
  const row = await visibleWebhooks(db, caller).selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Webhook');
  return row;
}

export interface WebhookListQuery {
  limit: number;
  offset: number;
  q?: string;
  state?: string;
  category?: string;
  orderBy: 'id' | 'label' | 'url' | 'createdAt' | 'updatedAt';
  order: 'asc' | 'desc';
}

export async function listWebhooks(db: Db, caller: Caller, query: WebhookListQuery) {
  let base = visibleWebhooks(db, caller);
  if (query.state) base = base.where('state', '=', query.state);
  // Categories are a JSON array; the quotes keep "member" from matching "memberKey".
  if (query.category) base = base.where('categories', 'like', `%"${query.category}"%`);
  if (query.q) {
    const pattern = likePattern(query.q);
    base = base.where((eb) =>
      eb.or(
        (['label', 'url', 'notes'] as const).map((c) => eb(eb.fn('lower', [eb.ref(c)]), 'like', pattern)),
      ),
    );
  }
  const [{ total }] = await base.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await base
    .selectAll()
    .orderBy(query.orderBy, (ob) => (query.order === 'desc' ? ob.desc() : ob.asc()).nullsLast())
    .orderBy('id', query.order)
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return { total: Number(total), rows };
}

export interface EventListQuery {
  limit: number;
  offset: number;
  type?: string;
  state?: 'pending' | 'delivered' | 'failed';
}

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

/** One delivery as the events list shows it. */
export async function findWebhookEvent(db: Db, deliveryId: number): Promise<WebhookEventRecord> {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event')
    .select(deliveryColumns)
    .where('d.id', '=', deliveryId)
    .execute();
  const [record] = await eventRecords(db, rows);
  if (!record) throw notFound('Webhook event');
  return record;
}

/** Recent events of one webhook, newest first, each with its delivery and every attempt. */
export async function listWebhookEvents(db: Db, webhookId: number, query: EventListQuery) {
  let base = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event')
    .where('d.webhook', '=', webhookId);
  if (query.type) base = base.where('e.type', '=', query.type);
  if (query.state === 'failed') base = base.where('d.state', 'in', ['failed', 'test']);
  else if (query.state) base = base.where('d.state', '=', query.state);
  const [{ total }] = await base.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await base
    .select(deliveryColumns)
    .orderBy('d.id', 'desc')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  const records = await eventRecords(db, rows);
  return { total: Number(total), records };
}

type DeliveryRow = {
  deliveryId: number;
  state: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  id: number;
  type: string;
  createdAt: string;
  details: string;
};

export async function eventRecords(db: Db, rows: DeliveryRow[]): Promise<WebhookEventRecord[]> {
  const ids = rows.map((r) => r.deliveryId);
  const attempts =
    ids.length === 0
      ? []
      : await db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where('delivery', 'in', ids)
          .orderBy('id')
          .execute();
  return rows.map((r) => ({
    id: r.id,
    type: r.type as WebhookEventRecord['type'],
    createdAt: r.createdAt,
    details: parseJson<Record<string, unknown>>(r.details) ?? {},
    delivery: {
      id: r.deliveryId,
      // 'test' marks a test delivery that never finished (the hub stopped during it).
      state: (r.state === 'test' ? 'failed' : r.state) as WebhookEventRecord['delivery']['state'],
      nextAttemptAt: r.state === 'pending' ? r.nextAttemptAt : null,
      deliveredAt: r.deliveredAt,
      attempts: attempts
        .filter((a) => a.delivery === r.deliveryId)
        .map((a) => ({
          at: a.at,
          statusCode: a.statusCode,
          durationMs: a.durationMs,
          error: a.error,
          responseExcerpt: a.responseExcerpt,
        })),
    },
  }));
}
