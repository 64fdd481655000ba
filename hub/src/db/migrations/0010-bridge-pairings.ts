import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { accountTable, cascadeTo, index } from './helpers.js';

/**
 * One-use pairing codes for new Pis (`makerspace-agent pair <hub URL> <code>`): stored as
 * hashes, redeemed once for the bridge API key.
 */
export function bridgePairings(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await accountTable(db, 'bridge_pairings', dialect)
        .addColumn('resource', 'integer', cascadeTo('resources.id'))
        .addColumn('codeHash', 'text', (c) => c.notNull())
        .addColumn('expiresAt', 'text', (c) => c.notNull())
        .addColumn('redeemedAt', 'text')
        .addColumn('createdBy', 'integer', (c) => c.notNull())
        .addColumn('createdAt', 'text', (c) => c.notNull())
        .execute();
      await index(db, 'bridge_pairings', ['codeHash'], true);
      await index(db, 'bridge_pairings', ['resource']);
    },
  };
}
