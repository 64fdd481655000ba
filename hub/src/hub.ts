import { createLogger, type Logger } from '@makerspace/shared';
import type { FastifyInstance } from 'fastify';
import { AccessPolicy } from './access/policy.js';
import { allRules } from './access/rules.js';
import { buildApp } from './app.js';
import { type Clock, type HubContext, systemClock } from './context.js';
import { createStorage, type Storage } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { Authenticator } from './identity/authenticator.js';
import { loadSecret, TokenBox } from './secrets.js';
import type { HubSettings } from './settings.js';

export interface Hub {
  ctx: HubContext;
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface OpenHubOptions {
  logger?: Logger;
  clock?: Clock;
  /** PostgreSQL schema to run in (tests). */
  schema?: string;
  /** A ready secret key instead of reading HUB_SECRET_FILE (tests). */
  secret?: Buffer;
}

/** Opens storage (migrated), builds the context and the app: everything but listening. */
export async function openHub(settings: HubSettings, options: OpenHubOptions = {}): Promise<Hub> {
  const logger = options.logger ?? createLogger({ name: 'makerspace-hub', level: settings.logLevel });
  const storage: Storage = createStorage({ url: settings.databaseUrl, schema: options.schema });
  try {
    await migrateToLatest(storage.db, storage.dialect);
  } catch (err) {
    await storage.close();
    throw err;
  }
  const tokens = new TokenBox(options.secret ?? loadSecret(settings.secretFile));
  const ctx: HubContext = {
    storage,
    db: storage.db,
    tokens,
    auth: new Authenticator(storage.db),
    logger,
    clock: options.clock ?? systemClock,
    policy: new AccessPolicy(allRules()),
    publicUrl: settings.publicUrl,
  };
  const app = await buildApp(ctx);
  return {
    ctx,
    app,
    async close() {
      await app.close();
      await storage.close();
    },
  };
}
