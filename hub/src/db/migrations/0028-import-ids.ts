import { columns } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index } from './tables.js';

/**
 * Moving in (docs/OPERATIONS.md, "Moving in"): which record of another server became which
 * record here (`import_ids`), so an import run again updates instead of duplicating, and a run
 * stopped halfway carries on where it was.
 */
export const importIds = migration(async (db, dialect) => {
  await accountTable(db, 'import_ids', dialect)
    .$call(
      columns({
        source: 'text not null',
        kind: 'text not null',
        oldId: 'text not null',
        newId: 'integer not null',
        // A hash of what was written from the other server's record: unchanged means skip.
        fingerprint: 'text not null',
        createdAt: 'text not null',
      }),
    )
    .execute();
  await index(db, 'import_ids', ['account', 'source', 'kind', 'oldId'], true);
});
