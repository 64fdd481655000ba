import { createLogger, type Logger } from '@makerspace/shared';
import type { FastifyInstance } from 'fastify';
import { AccessPolicy } from './access/policy.js';
import { allRules } from './access/rules.js';
import { buildApp } from './app.js';
import { JobRunner } from './billing/jobs.js';
import { type Clock, type HubContext, systemClock } from './context.js';
import { createStorage, type Storage } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { Authenticator } from './identity/authenticator.js';
import { loadSecret, TokenBox } from './secrets.js';
import type { HubSettings } from './settings.js';
import { EventBus } from './webhooks/events.js';
import { defaultWebhookSettings, WebhookWorker } from './webhooks/worker.js';

export interface Hub {
  ctx: HubContext;
  app: FastifyInstance;
  /** Background jobs (package billing, invoice runs). */
  jobs: JobRunner;
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
    events: new EventBus(storage.db),
    webhooks: {
      ...defaultWebhookSettings,
      ...settings.webhookTuning,
      allowInsecure: settings.webhookAllowInsecure ?? false,
    },
  };
  const app = await buildApp(ctx);
  const webhookWorker = new WebhookWorker({ db: storage.db, tokens, logger, settings: ctx.webhooks });
  ctx.events.onCommit(() => webhookWorker.wake());
  webhookWorker.start();
  const jobs = new JobRunner({ db: storage.db, clock: ctx.clock, logger });
  await jobs.start();
  return {
    ctx,
    app,
    jobs,
    async close() {
      await webhookWorker.stop();
      await jobs.stop();
      await app.close();
      await storage.close();
    },
  };
}
