import { accountTable, index } from './helpers.js';
import { migration } from './migration.js';

/**
 * Shadow mode's webhook receivers (docs/MOVING.md): the secret URL another access server posts
 * its resource log events to, one per account and source. Only the secret's hash is kept.
 */
export const shadowReceivers = migration(
  async (db, dialect) => {
    await accountTable(db, 'shadow_receivers', dialect)
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('secretHash', 'text', (c) => c.notNull())
      .addColumn('createdAt', 'text', (c) => c.notNull())
      .addColumn('rotatedAt', 'text', (c) => c.notNull())
      .addColumn('lastEventAt', 'text')
      .addColumn('updatedBy', 'integer')
      .execute();
    await index(db, 'shadow_receivers', ['account', 'source'], true);
  },
  async (db) => {
    await db.schema.dropTable('shadow_receivers').execute();
  },
);
