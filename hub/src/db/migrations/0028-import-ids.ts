import { accountTable, index } from './helpers.js';
import { migration } from './migration.js';

/**
 * Moving in (docs/OPERATIONS.md, "Moving in"): which record of another server became which
 * record here (`import_ids`), so an import run again updates instead of duplicating, and a run
 * stopped halfway carries on where it was.
 */
export const importIds = migration(async (db, dialect) => {
  await accountTable(db, 'import_ids', dialect)
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('oldId', 'text', (c) => c.notNull())
    .addColumn('newId', 'integer', (c) => c.notNull())
    // A hash of what was written from the other server's record: unchanged means skip.
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'import_ids', ['account', 'source', 'kind', 'oldId'], true);
});
