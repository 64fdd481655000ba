import { migration } from './migration.js';
import { sideTable } from './tables.js';

/**
 * Agent updates (docs/OPERATIONS.md, "Updating agents"): the last update an admin started for each
 * bridge and how far its agent got. The hub's release signing key lives in `hub_meta`, sealed.
 */
export const agentUpdates = migration(async (db) => {
  await sideTable(db, 'agent_updates', 'resource', 'resources.id')
    .addColumn('updateId', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('fromVersion', 'text')
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('startedBy', 'integer')
    .addColumn('startedAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
});
