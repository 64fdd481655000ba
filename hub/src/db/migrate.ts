import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { DialectName } from './database.js';
import { foundation } from './migrations/0001-foundation.js';
import { resources } from './migrations/0002-resources.js';
import { spaces } from './migrations/0003-spaces.js';
import { webhooks } from './migrations/0004-webhooks.js';
import { billing } from './migrations/0005-billing.js';
import { keys } from './migrations/0006-keys.js';

/** Every migration, in order. Released migrations are frozen: add new ones, never edit. */
function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-resources': resources(dialect),
    '0003-spaces': spaces(dialect),
    '0004-webhooks': webhooks(dialect),
    '0005-billing': billing(dialect),
    '0006-keys': keys(dialect),
  };
}

export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
