import { cascadeTo } from './columns.js';
import { migration } from './migration.js';
import { index, withId } from './tables.js';

/**
 * Mail notifications: the outbox of mails to members and admins (written in the transaction of
 * the change that causes them, sent by the notification worker with retries), and each member's
 * choice of the kinds they receive.
 */
export const notifications = migration(async (db, dialect) => {
  await withId(db.schema.createTable('notifications'), dialect)
    .addColumn('account', 'integer', cascadeTo('accounts.id'))
    .addColumn('member', 'integer', cascadeTo('members.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    // What the mail says, as it was when the notification was made (JSON).
    .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
    // Periodic notifications: one per key ever (a reminder is not sent twice).
    .addColumn('dedupeKey', 'text', (c) => c.unique())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('nextAttemptAt', 'text')
    .addColumn('leaseUntil', 'text')
    .addColumn('lastError', 'text')
    .addColumn('subject', 'text')
    .addColumn('sentAt', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'notifications', ['state', 'nextAttemptAt']);
  await index(db, 'notifications', ['account', 'id']);

  // A member's choice per kind; a kind without a row has its default (notifications/kinds.ts).
  await db.schema
    .createTable('notification_settings')
    .addColumn('member', 'integer', (c) => cascadeTo('members.id')(c).primaryKey())
    .addColumn('account', 'integer', cascadeTo('accounts.id'))
    .addColumn('kinds', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
});
