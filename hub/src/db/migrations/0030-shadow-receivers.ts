import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { accountTable, index } from './helpers.js';

/**
 * Shadow mode's webhook receivers (docs/MOVING.md): the secret URL another access server posts
 * its resource log events to, one per account and source. Only the secret's hash is kept.
 */
export function shadowReceivers(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
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
    async down(db: Kysely<any>) {
      await db.schema.dropTable('shadow_receivers').execute();
    },
  };
}
