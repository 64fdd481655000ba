import { accountTable, index } from './helpers.js';
import { migration } from './migration.js';

/**
 * Shadow mode (docs/MOVING.md): each decision another access server logged (allowed or denied),
 * with what our access policy decides for the same member, resource and moment. One row per
 * log of the other server (`source`, `remoteLog`): a run that starts again skips what it compared.
 */
export const shadow = migration(
  async (db, dialect) => {
    await accountTable(db, 'shadow_decisions', dialect)
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('remoteLog', 'integer', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('remoteResource', 'integer', (c) => c.notNull())
      .addColumn('remoteMember', 'integer')
      .addColumn('resource', 'integer')
      .addColumn('member', 'integer')
      .addColumn('theirs', 'text', (c) => c.notNull())
      .addColumn('theirReason', 'text')
      .addColumn('ours', 'text', (c) => c.notNull())
      .addColumn('ourReason', 'text')
      .addColumn('ourMessage', 'text')
      .addColumn('agrees', 'integer', (c) => c.notNull())
      .addColumn('checkedAt', 'text', (c) => c.notNull())
      .execute();
    await index(db, 'shadow_decisions', ['source', 'remoteLog'], true);
    await index(db, 'shadow_decisions', ['account', 'source', 'at']);
  },
  async (db) => {
    await db.schema.dropTable('shadow_decisions').execute();
  },
);
