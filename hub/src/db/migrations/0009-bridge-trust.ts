import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { index } from './helpers.js';

/**
 * Switch-ons the hub has sent and not yet seen settled: written with the allowed log before the
 * command goes out, so a hub that dies before the reply finds them at the bridge's next connect.
 */
export function bridgeTrust(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('pending_switch_ons')
        .addColumn('commandId', 'text', (c) => c.primaryKey())
        .addColumn('resource', 'integer', (c) => c.notNull().references('resources.id').onDelete('cascade'))
        .addColumn('log', 'integer', (c) => c.notNull().references('resource_logs.id').onDelete('cascade'))
        .addColumn('door', 'integer', (c) => c.notNull())
        // 'pending' until the reply; 'timedOut' once the hub answered 504 (a late reply still counts).
        .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
        .addColumn('command', 'text', (c) => c.notNull())
        .addColumn('createdAt', 'text', (c) => c.notNull())
        .execute();
      await index(db, 'pending_switch_ons', ['resource']);
    },
  };
}
