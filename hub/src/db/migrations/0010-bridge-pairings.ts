import { migration } from './migration.js';
import { accountTable, index } from './tables.js';

/**
 * One-use pairing codes for new Pis (`makerspace-agent pair <hub URL> <code>`): stored as
 * hashes, redeemed once for the bridge API key.
 */
export const bridgePairings = migration(async (db, dialect) => {
  await accountTable(db, 'bridge_pairings', dialect, { resource: 'resources.id' })
    .addColumn('codeHash', 'text', (c) => c.notNull())
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .addColumn('redeemedAt', 'text')
    .addColumn('createdBy', 'integer', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'bridge_pairings', ['codeHash'], true);
  await index(db, 'bridge_pairings', ['resource']);
});
