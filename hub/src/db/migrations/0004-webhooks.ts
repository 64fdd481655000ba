import { cascadeTo, required, withStamps } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, withId } from './tables.js';

/**
 * Webhooks and their outbox (DESIGN 9): events are written in the same transaction as the
 * change; one delivery row per subscribed webhook carries the retry state, so a restart
 * loses nothing.
 */
export const webhooks = migration(async (db, dialect) => {
  await withStamps(
    accountTable(db, 'webhooks', dialect)
      .$call(required('text', 'url'))
      .addColumn('label', 'text')
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('notes', 'text')
      // JSON array of category names.
      .addColumn('categories', 'text', (c) => c.notNull())
      // AES-GCM sealed signing secret (ctx.tokens).
      .addColumn('secretEncrypted', 'text', (c) => c.notNull())
      .addColumn('failingSince', 'text')
      .addColumn('consecutiveFailures', 'integer', (c) => c.notNull().defaultTo(0)),
  ).execute();
  await index(db, 'webhooks', ['account', 'state']);

  await accountTable(db, 'webhook_events', dialect)
    .$call(required('text', 'type', 'details', 'createdAt'))
    .execute();
  await index(db, 'webhook_events', ['account', 'createdAt']);

  await withId(db.schema.createTable('webhook_deliveries'), dialect)
    .addColumn('account', 'integer', (c) => c.notNull())
    .addColumn('webhook', 'integer', cascadeTo('webhooks.id'))
    .addColumn('event', 'integer', cascadeTo('webhook_events.id'))
    // pending (queued or retrying) | delivered | failed (test deliveries only: never retried)
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('nextAttemptAt', 'text')
    // A hub process that took this delivery holds it until then (several hubs on PostgreSQL).
    .addColumn('leaseUntil', 'text')
    .addColumn('deliveredAt', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  // The worker reads the oldest pending delivery of each webhook.
  await index(db, 'webhook_deliveries', ['webhook', 'state', 'id']);
  await index(db, 'webhook_deliveries', ['state', 'nextAttemptAt']);

  await withId(db.schema.createTable('webhook_attempts'), dialect)
    .addColumn('delivery', 'integer', (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('statusCode', 'integer')
    .addColumn('durationMs', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('responseExcerpt', 'text')
    .execute();
  await index(db, 'webhook_attempts', ['delivery']);
});
