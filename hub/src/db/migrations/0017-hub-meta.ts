import { migration } from './migration.js';

/**
 * Values the hub keeps about itself, by name. The first is `keyCheck`: proof of the secret key
 * (HUB_SECRET_FILE) the database's sealed values were written with (secrets.ts).
 */
export const hubMeta = migration(async (db) => {
  await db.schema
    .createTable('hub_meta')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
});
