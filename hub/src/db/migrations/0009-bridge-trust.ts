import { cascadeTo } from './columns.js';
import { migration } from './migration.js';
import { index } from './tables.js';

/**
 * Switch-ons the hub has sent and not yet seen settled: written with the allowed log before the
 * command goes out, so a hub that dies before the reply finds them at the bridge's next connect.
 */
export const bridgeTrust = migration(async (db) => {
  await db.schema
    .createTable('pending_switch_ons')
    .addColumn('commandId', 'text', (c) => c.primaryKey())
    .addColumn('resource', 'integer', cascadeTo('resources.id'))
    .addColumn('log', 'integer', cascadeTo('resource_logs.id'))
    .addColumn('door', 'integer', (c) => c.notNull())
    // 'pending' until the reply; 'timedOut' once the hub answered 504 (a late reply still counts).
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('command', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'pending_switch_ons', ['resource']);
});
