import { randomBytes } from 'node:crypto';
import type { WebhookCategory, WebhookEventRecord, WebhookRecord, WebhookState } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { parseJson, likePattern } from '../db/crud.js';
import { columnsOf, recordOf, visibleRow } from '../db/records.js';
import type { WebhooksTable } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';
import { ofCallersAccount } from '../identity/records.repository.js';
import { notFound, unprocessable } from '../errors.js';
import { checkWebhookUrl, UnsafeUrlError, type UrlPolicy } from './url-safety.js';
import { insertRow } from '../db/collection-rows.js';
import { sanitizeRichText } from '../rich-text.js';
import type { TokenBox } from '../secrets.js';
import {
  attemptsOf,
  type DeliveryFilter,
  type DeliveryRow,
  deliveryWithEvent,
  makeQueueDue,
  pageOfDeliveries,
} from './webhooks.repository.js';

/**
 * The stored columns of a webhook URL: sealed with the hub secret (a URL may carry a secret in
 * its query or path), and its host in clear for search and ordering.
 */
export function webhookUrlColumns(url: string, seal: (plain: string) => string) {
  let host = '';
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    // Only checked URLs are stored; an unreadable one keeps no host.
  }
  return { urlEncrypted: seal(url), urlHost: host };
}

export type WebhookRow = Selectable<WebhooksTable>;

/** A webhook as admins see it: its URL opened (it is stored sealed, see webhookUrlColumns). */
export function webhookRecord(row: WebhookRow, tokens: Pick<TokenBox, 'open'>): WebhookRecord {
  return {
    ...columnsOf(row, ['id', 'account']),
    url: tokens.open(row.urlEncrypted),
    label: row.label,
    state: row.state as WebhookState,
    notes: row.notes,
    categories: parseJson<WebhookCategory[]>(row.categories) ?? [],
    ...recordOf(row, ['failingSince']),
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
  return ofCallersAccount(db, 'webhooks', caller);
}

export async function findWebhook(db: Db, caller: Caller, id: number): Promise<WebhookRow> {
  return visibleRow(visibleWebhooks(db, caller), 'webhooks', id, 'Webhook');
}

export interface WebhookListQuery {
  q?: string;
  state?: string;
  category?: string;
  orderBy?: 'id' | 'label' | 'url' | 'createdAt' | 'updatedAt';
  order?: 'asc' | 'desc';
}

type WebhookQuery = ReturnType<typeof visibleWebhooks>;

/**
 * The webhooks a list query selects: `state`, `category`, and `q` in label, the URL's host and
 * notes (the rest of the URL is sealed).
 */
export function filterWebhooks(base: WebhookQuery, query: WebhookListQuery): WebhookQuery {
  if (query.state) base = base.where('state', '=', query.state);
  // Categories are a JSON array; the quotes keep "member" from matching "memberKey".
  if (query.category) base = base.where('categories', 'like', `%"${query.category}"%`);
  if (query.q) {
    const pattern = likePattern(query.q);
    base = base.where((eb) =>
      eb.or(
        (['label', 'urlHost', 'notes'] as const).map((c) => eb(eb.fn('lower', [eb.ref(c)]), 'like', pattern)),
      ),
    );
  }
  return base;
}

/** A webhook list's order: `orderBy` with nulls last (`url`: by its host), then id. */
export const webhookOrder = (query: WebhookListQuery): [string, 'asc' | 'desc', 'nullsLast'][] => [
  [query.orderBy === 'url' ? 'urlHost' : (query.orderBy ?? 'id'), query.order ?? 'asc', 'nullsLast'],
  ['id', query.order ?? 'asc', 'nullsLast'],
];

const uniq = <T>(values: T[]) => [...new Set(values)];

interface WebhookInput {
  url?: string;
  label?: string | null;
  state?: string;
  notes?: string | null;
  categories?: string[];
}

/** Creates a webhook with a new signing secret (sealed); its URL must be safe to call. */
export async function createWebhook(
  db: Db,
  caller: Caller,
  body: WebhookInput & { url: string; categories: string[] },
  options: { policy: UrlPolicy; seal: (plain: string) => string; at: string },
): Promise<WebhookRow> {
  await assertSafeUrl(body.url, options.policy);
  return insertRow(
    db,
    'webhooks',
    {
      account: caller.accountId,
      ...webhookUrlColumns(body.url, options.seal),
      label: body.label ?? null,
      state: body.state ?? 'active',
      notes: sanitizeRichText(body.notes) ?? null,
      categories: JSON.stringify(uniq(body.categories)),
      secretEncrypted: options.seal(newWebhookSecret()),
      failingSince: null,
    },
    { at: options.at, by: caller.memberId },
  );
}

/**
 * The columns a webhook update changes. A new URL must be safe; `rotateSecret` seals a new
 * secret; setting `active` resumes a failing or deactivated webhook (see resumeDeliveries).
 */
export async function webhookChanges(
  current: WebhookRow,
  body: WebhookInput & { rotateSecret?: boolean },
  options: { policy: UrlPolicy; seal: (plain: string) => string; open: (sealed: string) => string },
): Promise<Record<string, unknown>> {
  const { url, label, state, notes, categories, rotateSecret } = body;
  const changedUrl = url !== undefined && url !== options.open(current.urlEncrypted);
  if (changedUrl) await assertSafeUrl(url, options.policy);
  const values: Record<string, unknown> = {};
  if (changedUrl) Object.assign(values, webhookUrlColumns(url, options.seal));
  if (label !== undefined) values.label = label;
  if (notes !== undefined) values.notes = sanitizeRichText(notes);
  if (categories !== undefined) values.categories = JSON.stringify(uniq(categories));
  if (state !== undefined) values.state = state;
  if (rotateSecret) values.secretEncrypted = options.seal(newWebhookSecret());
  if (state === 'active' && current.state !== 'active')
    Object.assign(values, { failingSince: null, consecutiveFailures: 0 });
  return values;
}

/** A webhook set active again: its queued deliveries go out now. */
export async function resumeDeliveries(
  db: Db,
  before: WebhookRow,
  after: WebhookRow,
  at: string,
): Promise<void> {
  if (after.state !== 'active' || before.state === 'active') return;
  await makeQueueDue(db, after.id, at);
}

/** Which of a webhook's events a list shows. */
export type EventListQuery = DeliveryFilter;

/** One delivery as the events list shows it. */
export async function findWebhookEvent(db: Db, deliveryId: number): Promise<WebhookEventRecord> {
  const [record] = await eventRecords(db, await deliveryWithEvent(db, deliveryId));
  if (!record) throw notFound('Webhook event');
  return record;
}

/** Recent events of one webhook, newest first, each with its delivery and every attempt. */
export async function listWebhookEvents(db: Db, webhookId: number, query: EventListQuery) {
  const { total, rows } = await pageOfDeliveries(db, webhookId, query);
  const records = await eventRecords(db, rows);
  return { total, records };
}

export async function eventRecords(db: Db, rows: DeliveryRow[]): Promise<WebhookEventRecord[]> {
  const attempts = await attemptsOf(
    db,
    rows.map((r) => r.deliveryId),
  );
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
