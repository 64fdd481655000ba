import {
  type DatabaseIntrospector,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely';
import type { DialectName } from './database.js';
import { foundation } from './migrations/0001-foundation.js';
import { resources } from './migrations/0002-resources.js';
import { spaces } from './migrations/0003-spaces.js';
import { webhooks } from './migrations/0004-webhooks.js';
import { billing } from './migrations/0005-billing.js';
import { keys } from './migrations/0006-keys.js';
import { signIn } from './migrations/0007-sign-in.js';
import { retiredCodes } from './migrations/0008-retired-codes.js';
import { bridgeTrust } from './migrations/0009-bridge-trust.js';
import { bridgePairings } from './migrations/0010-bridge-pairings.js';
import { bridgeDuplicates } from './migrations/0011-bridge-duplicates.js';
import { openSessions } from './migrations/0012-open-sessions.js';
import { memberSubresources } from './migrations/0013-member-subresources.js';
import { resourceLimits } from './migrations/0014-resource-limits.js';
import { trainingTrainer } from './migrations/0015-training-trainer.js';
import { webhookUrlsSealed } from './migrations/0016-webhook-urls-sealed.js';
import { hubMeta } from './migrations/0017-hub-meta.js';
import { stripe } from './migrations/0018-stripe.js';
import { sepaBatches } from './migrations/0019-sepa-batches.js';
import { invoicePdfs } from './migrations/0020-invoice-pdfs.js';
import { notifications } from './migrations/0021-notifications.js';
import { courseTrainers } from './migrations/0022-course-trainers.js';
import { problemReports } from './migrations/0023-problem-reports.js';
import { signUps } from './migrations/0024-sign-ups.js';
import { presence } from './migrations/0025-presence.js';
import { machineInputs } from './migrations/0026-machine-inputs.js';
import { agentUpdates } from './migrations/0027-agent-updates.js';
// Moving in: the map of imported ids.
import { importIds } from './migrations/0028-import-ids.js';
import { shadow } from './migrations/0029-shadow.js';
import { shadowReceivers } from './migrations/0030-shadow-receivers.js';
import type { TokenBox } from '../secrets.js';

/** A migration that failed, with its name. */
export class MigrationError extends Error {
  constructor(
    readonly migration: string,
    override readonly cause: unknown,
  ) {
    super(`migration ${migration} failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'MigrationError';
  }
}

/**
 * Every migration, in order. Released migrations are frozen: add new ones, never edit. `tokens`
 * gives the hub's secret key to migrations that seal stored values (asked only when needed).
 */
export function migrations(dialect: DialectName, tokens?: () => TokenBox): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-resources': resources(dialect),
    '0003-spaces': spaces(dialect),
    '0004-webhooks': webhooks(dialect),
    '0005-billing': billing(dialect),
    '0006-keys': keys(dialect),
    '0007-sign-in': signIn(dialect),
    '0008-retired-codes': retiredCodes(dialect),
    '0009-bridge-trust': bridgeTrust(dialect),
    '0010-bridge-pairings': bridgePairings(dialect),
    '0011-bridge-duplicates': bridgeDuplicates(dialect),
    '0012-open-sessions': openSessions(dialect),
    '0013-member-subresources': memberSubresources(dialect),
    '0014-resource-limits': resourceLimits(dialect),
    '0015-training-trainer': trainingTrainer(dialect),
    '0016-webhook-urls-sealed': webhookUrlsSealed(dialect, tokens),
    '0017-hub-meta': hubMeta(dialect),
    '0018-stripe': stripe(dialect),
    '0019-sepa-batches': sepaBatches(dialect),
    '0020-invoice-pdfs': invoicePdfs(dialect),
    '0021-notifications': notifications(dialect),
    '0022-course-trainers': courseTrainers(dialect),
    '0023-problem-reports': problemReports(dialect),
    '0024-sign-ups': signUps(dialect),
    '0025-presence': presence(dialect),
    '0026-machine-inputs': machineInputs(dialect),
    '0027-agent-updates': agentUpdates(dialect),
    // Moving in: the map of imported ids.
    '0028-import-ids': importIds(dialect),
    '0029-shadow': shadow(dialect),
    '0030-shadow-receivers': shadowReceivers(dialect),
  };
}

/** The names of the migrations this version knows, in order (restore checks a backup against them). */
export function knownMigrations(): string[] {
  return Object.keys(migrations('sqlite'));
}

/**
 * The migrator of the hub's schema. On PostgreSQL its bookkeeping tables live in the schema the
 * hub uses: without saying so, Kysely takes a kysely_migration table in any schema of the
 * database (another hub's, or a test's) for its own.
 */
export async function hubMigrator(
  db: Kysely<any>,
  dialect: DialectName,
  tokens?: () => TokenBox,
): Promise<Migrator> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect, tokens) };
  if (dialect !== 'postgres') return new Migrator({ db, provider });
  const schema = (await sql<{ schema: string }>`select current_schema() as "schema"`.execute(db)).rows[0]
    ?.schema;
  if (!schema) return new Migrator({ db, provider });
  return new Migrator({ db: lookingOnlyAt(db, schema), provider, migrationTableSchema: schema });
}

export async function migrateToLatest(
  db: Kysely<any>,
  dialect: DialectName,
  tokens?: () => TokenBox,
): Promise<string[]> {
  const migrator = await hubMigrator(db, dialect, tokens);
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw failed ? new MigrationError(failed, error) : error;
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * `db` with an introspector that sees only `schema`. To find its bookkeeping tables the migrator
 * lists tables, and Kysely's PostgreSQL introspector lists those of every schema of the database;
 * another hub (or test) dropping its schema during that listing fails it with "schema … does not
 * exist". Only the migrator gets this view; everything else about `db` is unchanged.
 */
function lookingOnlyAt(db: Kysely<any>, schema: string): Kysely<any> {
  const tables = async () => {
    const { rows } = await sql<{ name: string; isView: boolean }>`
      select table_name as "name", table_type = 'VIEW' as "isView"
      from information_schema.tables where table_schema = ${schema}`.execute(db);
    return rows.map((r) => ({ ...r, schema, columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables: tables,
    getMetadata: async () => ({ tables: await tables() }),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value = Reflect.get(target, property, target);
      // Kysely keeps its state in private fields: its methods must run on the real instance.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
