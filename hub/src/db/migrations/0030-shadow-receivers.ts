import { required, texts } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index } from './tables.js';

/**
 * Shadow mode's webhook receivers (docs/MOVING.md): the secret URL another access server posts
 * its resource log events to, one per account and source. Only the secret's hash is kept.
 */
export const shadowReceivers = migration(
  async (db, dialect) => {
    await accountTable(db, 'shadow_receivers', dialect)
      .$call(required('text', 'source', 'secretHash', 'createdAt', 'rotatedAt'))
      .$call(texts('lastEventAt'))
      .addColumn('updatedBy', 'integer')
      .execute();
    await index(db, 'shadow_receivers', ['account', 'source'], true);
  },
  async (db) => {
    await db.schema.dropTable('shadow_receivers').execute();
  },
);
