import { chmodSync, existsSync, statSync } from 'node:fs';
import { createLogger, type Logger } from '@makerspace/shared';
import type { FastifyInstance } from 'fastify';
import { AccessPolicy } from './access/policy.js';
import { coreRules } from './access/core.rules.js';
import type { AccessRule } from './access/policy.js';
import { packageRules } from './billing/rules.js';
import { spaceRules } from './spaces/access.rules.js';
import { API_PREFIX, buildApp } from './app.js';
import { CountCache, RecordCache } from './http/caches.js';
import { usageCharges } from './billing/charges.js';
import { trainingTapClaims } from './spaces/training-taps.js';
import { presencePort, watchClosingTimes } from './presence/check-ins.js';
import { watchDoorWindows } from './presence/door-windows.js';
import { presenceRules } from './presence/occupancy.rules.js';
import { JobRunner } from './billing/jobs.js';
import { StripeGateway, StripePaymentProvider } from './billing/stripe.js';
import { chargeRetriesDue, chargeSavedMethods } from './billing/stripe-charges.js';
import { stripeRoutes } from './routes/stripe.routes.js';
import { BridgeBroker } from './broker/bridge-broker.js';
import { hubMetrics } from './observability/metrics.js';
import { checkReadiness } from './observability/observability.routes.js';
import { type Caches, type Clock, ResourceSignals, systemClock } from './context.js';
import type { HubServices } from './http/services.js';
import { createStorage, type Storage, sqliteFile } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { Authenticator } from './identity/authenticator.js';
import { type AccessFollower, followAccessChanges, watchLocalDates } from './resources/bridge-config.js';
import { type PeriodicCheck, periodicCheck } from './periodic.js';
import { watchMemberChanges } from './identity/member-changes.js';
import { memberChangeApplied } from './routes/member-changes.routes.js';
import { watchHeartbeats } from './resources/http-bridge.js';
import { hashToken, loadSecret, TokenBox } from './secrets.js';
import { checkSecretKey } from './secrets.js';
import type { HubSettings } from './settings.js';
import type { Mailer } from './sign-in/mailer.js';
import { SessionStore } from './sign-in/sessions.js';
import { purgeEnded } from './sign-in/sign-in.repository.js';
import { purgeStripeEvents } from './billing/stripe.repository.js';
import { signInThrottles } from './sign-in/throttle.js';
import { defaultInvitationDays } from './sign-in/links.js';
import { EventBus } from './db/outbox.js';
import { defaultWebhookSettings, WebhookWorker } from './webhooks/worker.js';
import type { Cluster, ClusterSettings } from './cluster/cluster.js';
import type { LeaderTask, Leadership } from './cluster/leadership.js';
import { type Extension, Extensions, extension } from './extensions.js';
import { setEventNotifier } from './db/outbox.js';
import { eventNotifier } from './notifications/notify.js';
import { notificationsPort } from './notifications/notifications.js';
import { periodicNotices } from './notifications/checks.js';
import { defaultNotificationTiming, NotificationWorker } from './notifications/worker.js';

/**
 * Every rule of the access policy: the core rules of access/, and each area's (spaces: opening
 * hours, holidays, bookings, training; billing: package, time table, prepaid balance). The face
 * composes them, so access/ imports no area that adds rules.
 */
export function allRules(): AccessRule[] {
  return [...coreRules(), ...spaceRules(), ...packageRules(), ...presenceRules()];
}

export interface Hub {
  ctx: HubServices;
  app: FastifyInstance;
  broker: BridgeBroker;
  /** Background jobs (package billing, invoice runs). */
  jobs: JobRunner;
  /** Republishes bridge configs (offline keys) when a space reaches a new local date. */
  localDates: PeriodicCheck;
  /** Presence: everyone still in is checked out at closing time (check() runs it now). */
  closingTimes: PeriodicCheck;
  /** Presence: held doors get a new config when their unlock window changes. */
  doorWindows: PeriodicCheck;
  /** Marks HTTP bridges offline after three missed heartbeats. */
  heartbeats: PeriodicCheck;
  /** Deletes browser sessions and sign-in links that ended more than a week ago. */
  signInPurge: PeriodicCheck;
  /** Forgets handled Stripe events older than 30 days, hourly. */
  stripeEventPurge: PeriodicCheck;
  /** Republishes offline keys after access changes (debounced). */
  accessChanges: AccessFollower;
  /** SQLite: folds the WAL into the database and truncates it, every few minutes. */
  walCheckpoint: PeriodicCheck;
  /** Applies scheduled member changes (/members/{id}/changes) on their date, every minute. */
  memberChanges: PeriodicCheck;
  /** Sends the mail outbox (notifications/worker.ts). */
  notifications: NotificationWorker;
  /** Queues the periodic notifications: reminders, ending packages, offline bridges (leader only). */
  notices: PeriodicCheck;
  /** Cluster mode (HUB_REDIS_URL): the shared state in Redis; null for one process. */
  cluster: Cluster | null;
  /** Cluster mode: whether this hub holds the periodic-jobs lock. */
  leadership: Leadership | null;
  /** The long-running parts started, in start order (stopped in reverse order). */
  extensions: string[];
  /** Starts HTTP (with MQTT over WebSocket at /mqtt) and MQTT over TCP; resolves the bound ports. */
  listen(): Promise<{ httpPort: number; mqttPort: number | null }>;
  /** True when the database and the broker work (the watchdog's check), else what fails. */
  healthy(): Promise<true | string>;
  close(): Promise<void>;
}

export interface OpenHubOptions {
  logger?: Logger;
  clock?: Clock;
  /** PostgreSQL schema to run in (tests). */
  schema?: string;
  /** A ready secret key instead of reading HUB_SECRET_FILE (tests). */
  secret?: Buffer;
  /** A mailer instead of the SMTP one of HUB_SMTP_URL (tests). */
  mailer?: Mailer | null;
}

/** Ended sessions and links are kept this long, so a late click still says why it fails. */
const signInKeepMs = 7 * 24 * 3600_000;

/**
 * Handled Stripe events are kept this long to recognise a delivery again: Stripe retries an
 * event for up to 3 days, and its signatures are refused after 5 minutes (docs/PAYMENTS.md).
 */
const stripeEventKeepMs = 30 * 24 * 3600_000;

/** The sender when HUB_MAIL_FROM is not set: no-reply at the public host. */
function defaultSender(publicUrl: string | undefined): string {
  const host = publicUrl ? new URL(publicUrl).hostname : 'localhost';
  return `Makerspace <no-reply@${host}>`;
}

/**
 * The data directory holds the database and the secret key: only the hub's user may enter it.
 * A directory an older hub (or `mkdir`) left open to others is closed, and the log says so.
 */
function secureDataDir(settings: HubSettings, logger: Logger): void {
  const dir = settings.dataDir;
  const inside = (f: string) => f.startsWith(`${dir}/`);
  if (!existsSync(dir) || !(inside(settings.secretFile) || inside(sqliteFile(settings.databaseUrl)))) return;
  const stat = statSync(dir);
  if ((stat.mode & 0o077) === 0 || stat.uid !== process.getuid?.()) return;
  chmodSync(dir, 0o700);
  logger.info({ dataDir: dir, was: (stat.mode & 0o777).toString(8) }, 'data directory set to mode 0700');
}

/** Opens storage (migrated), builds the context and the app: everything but listening. */
export async function openHub(settings: HubSettings, options: OpenHubOptions = {}): Promise<Hub> {
  const logger = options.logger ?? createLogger({ name: 'makerspace-hub', level: settings.logLevel });
  secureDataDir(settings, logger);
  const storage: Storage = createStorage({
    url: settings.databaseUrl,
    schema: options.schema,
    sqliteSynchronous: settings.sqliteSynchronous,
  });
  // The long-running parts, started in the order below and stopped in reverse order. Whatever
  // has started is stopped again when a later step fails, so a failed start leaves no timer or
  // socket that would keep the process alive.
  const extensions = new Extensions();
  let smtp: { close(): void } | null = null;
  const closeRest = async () => {
    smtp?.close();
    await storage.close();
  };
  try {
    const tokens = new TokenBox(options.secret ?? loadSecret(settings.secretFile));
    await migrateToLatest(storage.db, storage.dialect, () => tokens);
    // A key other than the database's would fail on every sealed value later: refuse now.
    await checkSecretKey(storage.db, tokens, settings.secretFile);
    const clock = options.clock ?? systemClock;
    // Mail only when configured: the SMTP client is loaded then.
    const mailer =
      options.mailer === undefined && settings.smtpUrl
        ? await smtpMailer(settings.smtpUrl, settings.mailFrom ?? defaultSender(settings.publicUrl))
        : null;
    smtp = mailer;
    const ctx = {
      storage,
      db: storage.db,
      tokens,
      auth: new Authenticator(storage.db),
      logger,
      clock,
      sessions: new SessionStore(storage.db, tokens, clock),
      mailer: options.mailer === undefined ? mailer : options.mailer,
      throttles: signInThrottles(clock),
      invitationLifetimeMs: (settings.invitationDays ?? defaultInvitationDays) * 86_400_000,
      linkBase: settings.publicUrl ?? `http://localhost:${settings.httpPort}`,
      policy: new AccessPolicy(allRules()),
      caches: { records: new RecordCache(), counts: new CountCache() } as Caches,
      publicUrl: settings.publicUrl,
      agentReleaseDir: settings.agentReleaseDir,
      signals: new ResourceSignals(),
      metrics: await hubMetrics(settings.metricsToken !== undefined),
      metricsTokenHash: settings.metricsToken ? hashToken(settings.metricsToken) : undefined,
      events: new EventBus(storage.db, clock),
      charges: usageCharges({ clock }),
      taps: trainingTapClaims,
      presence: presencePort,
      notifications: notificationsPort,
      webhooks: {
        ...defaultWebhookSettings,
        ...settings.webhookTuning,
        allowInsecure: settings.webhookAllowInsecure ?? false,
      },
    } as HubServices;
    // Cluster mode (HUB_REDIS_URL): Redis first, the broker joins the others through it. The
    // cluster's modules (Redis clients) are loaded only then.
    const cluster = settings.cluster
      ? await extensions.start(await clusterExtension(settings.cluster, ctx))
      : null;
    // Every hub of a cluster counts the same logins, link requests and sign-ups.
    if (cluster) ctx.throttles = signInThrottles(clock, cluster.cluster.failureWindows());
    const broker = new BridgeBroker(ctx, { trustProxy: settings.trustProxy, cluster: cluster?.cluster });
    ctx.bridges = broker;
    ctx.metrics.countBridgesOnline = () => broker.onlineCount();
    await extensions.start(ownLifecycle('broker', broker));
    // Payments through Stripe (billing/stripe*.ts): Stripe's API, or HUB_STRIPE_API_URL's.
    const stripe = new StripeGateway(settings.stripeApiUrl);
    const stripeDeps = {
      db: storage.db,
      clock,
      tokens,
      logger,
      stripe,
      linkBase: ctx.linkBase,
      notifications: ctx.notifications,
    };
    const app = await buildApp(ctx, {
      routes: [(c) => stripeRoutes(c, stripe)],
      paymentProvider: new StripePaymentProvider(stripeDeps),
      limits: settings.httpLimits,
      trustProxy: settings.trustProxy,
      authThrottle: settings.authThrottle,
      failureWindows: cluster?.cluster.failureWindows(),
    });
    // In-flight requests finish first when stopping (a switch-on may still wait for its agent's
    // reply); the live channel's streams end before (an open stream would hold app.close()).
    await extensions.start(stopOnly('http', () => app.close()));
    await extensions.start(stopOnly('live channel', () => app.live.close()));
    if (settings.homeAssistant) {
      // The Home Assistant link (an MQTT client) is loaded only when configured.
      const { HomeAssistantLink } = await import('./home-assistant/home-assistant.js');
      const link = new HomeAssistantLink(ctx, apiCaller(app), settings.homeAssistant);
      await extensions.start(ownLifecycle('home-assistant', link));
    }
    const webhookWorker = new WebhookWorker({
      db: storage.db,
      dialect: storage.dialect,
      tokens,
      logger,
      settings: ctx.webhooks,
      clock: ctx.clock,
      metrics: ctx.metrics,
    });
    ctx.events.onCommit(() => webhookWorker.wake());
    await extensions.start(ownLifecycle('webhook worker', webhookWorker));
    // Mail notifications: queued with the events of a change (the outbox's hook), sent by the
    // worker on every hub (leases keep two hubs off one mail).
    setEventNotifier(eventNotifier);
    const notificationTiming = { ...defaultNotificationTiming, ...settings.notificationTuning };
    const notificationWorker = new NotificationWorker({
      db: storage.db,
      dialect: storage.dialect,
      mailer: ctx.mailer,
      logger,
      clock: ctx.clock,
      timing: notificationTiming,
      linkBase: () => ctx.linkBase,
    });
    ctx.events.onCommit(() => notificationWorker.wake());
    await extensions.start(ownLifecycle('notification worker', notificationWorker));
    // Periodic work: in cluster mode it runs on the one hub holding the lock (cluster/leadership.ts).
    const leaderTasks: LeaderTask[] = [];
    const periodic = (name: string, task: LeaderTask): Extension =>
      extension(
        name,
        () => (cluster ? leaderTasks.push(task) : task.start()),
        () => task.stop(),
      );
    /** A periodic check that also runs once as soon as it starts. */
    const periodicFromNow = (name: string, check: PeriodicCheck): Extension =>
      periodic(name, { start: () => check.start({ immediately: true }), stop: () => check.stop() });
    const jobs = new JobRunner({
      db: storage.db,
      clock: ctx.clock,
      logger,
      charges: {
        charge: (accountId, member) => chargeSavedMethods(stripeDeps, accountId, member),
        retryDue: () => chargeRetriesDue(stripeDeps),
      },
    });
    await extensions.start(periodic('jobs', jobs));
    const accessChanges = followAccessChanges(ctx);
    await extensions.start(stopOnly('access changes', () => accessChanges.stop()));
    const localDates = watchLocalDates(ctx);
    await extensions.start(periodicFromNow('local dates', localDates));
    // Presence: closing-time check-outs, and doors held unlocked told when their window changes.
    const closingTimes = watchClosingTimes(ctx);
    await extensions.start(periodic('closing-time check-outs', closingTimes));
    const doorWindows = watchDoorWindows(ctx);
    await extensions.start(periodicFromNow('door unlock windows', doorWindows));
    const heartbeats = watchHeartbeats(ctx);
    await extensions.start(periodic('bridge heartbeats', heartbeats));
    const walCheckpoint = periodicCheck(
      () => storage.checkpoint(),
      settings.walCheckpointMs ?? 5 * 60_000,
      logger,
      'WAL checkpoint failed',
    );
    await extensions.start(ownLifecycle('WAL checkpoint', walCheckpoint));
    const signInPurge = periodicCheck(
      () => purgeEnded(storage.db, new Date(clock.now().getTime() - signInKeepMs).toISOString()),
      3600_000,
      logger,
      'purging ended sessions and sign-in links failed',
    );
    await extensions.start(periodic('sign-in purge', signInPurge));
    const stripeEventPurge = periodicCheck(
      async () => {
        await purgeStripeEvents(
          storage.db,
          new Date(clock.now().getTime() - stripeEventKeepMs).toISOString(),
        );
      },
      3600_000,
      logger,
      'purging old Stripe event ids failed',
    );
    await extensions.start(periodic('Stripe event purge', stripeEventPurge));
    const memberChanges = watchMemberChanges(ctx, memberChangeApplied(ctx));
    await extensions.start(periodic('member changes', memberChanges));
    const notices = periodicNotices(
      { db: storage.db, clock: ctx.clock, logger, timing: notificationTiming },
      () => notificationWorker.wake(),
    );
    await extensions.start(periodicFromNow('notifications', notices));
    const leadership = cluster
      ? await extensions.start(
          await leadershipExtension(settings.databaseUrl, options.schema, logger, leaderTasks),
        )
      : null;
    let closing: Promise<void> | null = null;
    return {
      ctx,
      app,
      broker,
      jobs,
      localDates,
      closingTimes,
      doorWindows,
      heartbeats,
      walCheckpoint,
      signInPurge,
      stripeEventPurge,
      memberChanges,
      accessChanges,
      notifications: notificationWorker,
      notices,
      cluster: cluster?.cluster ?? null,
      leadership: leadership?.leadership ?? null,
      extensions: extensions.names,
      async healthy() {
        const { ok, checks } = await checkReadiness(ctx);
        if (ok) return true;
        return Object.entries(checks)
          .filter(([, state]) => state !== 'ok')
          .map(([name]) => `${name} failing`)
          .join(', ');
      },
      async listen() {
        broker.attachWebSocket(app.server);
        await app.listen({ host: settings.httpHost, port: settings.httpPort });
        const address = app.server.address();
        const httpPort = typeof address === 'object' && address ? address.port : settings.httpPort;
        if (!settings.publicUrl) {
          ctx.linkBase = `http://localhost:${httpPort}`;
          logger.warn(
            { linkBase: ctx.linkBase },
            'HUB_PUBLIC_URL is not set: QR stickers and e-mailed links point at this address; set it to the address phones reach',
          );
        }
        let mqttPort: number | null = null;
        try {
          mqttPort = await broker.listenTcp(settings.mqttHost, settings.mqttPort);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
          // Another broker (say Mosquitto) has the port: keep serving the API and MQTT over
          // WebSocket, and say loudly how to fix it.
          logger.error(
            { port: settings.mqttPort },
            `MQTT port ${settings.mqttPort} is in use by another program; agents can still connect over ws://<host>:${httpPort}/mqtt. Set HUB_MQTT_PORT to a free port (0 picks one) to serve MQTT over TCP`,
          );
        }
        return { httpPort, mqttPort };
      },
      close() {
        closing ??= (async () => {
          try {
            await extensions.stop();
          } finally {
            await closeRest();
          }
        })();
        return closing;
      },
    };
  } catch (err) {
    await extensions.stopQuietly();
    await closeRest().catch(() => {});
    throw err;
  }
}

/** The SMTP mailer of HUB_SMTP_URL (nodemailer is loaded only then). */
async function smtpMailer(url: string, from: string) {
  const { SmtpMailer } = await import('./sign-in/mailer.js');
  return new SmtpMailer(url, from);
}

/** An extension of a part that starts and stops itself (the broker, a worker, a periodic check). */
function ownLifecycle(name: string, part: { start(): unknown; stop(): unknown }): Extension {
  return extension(
    name,
    () => part.start(),
    () => part.stop(),
  );
}

/** An extension with nothing to start, only `stop` to run when the hub stops. */
function stopOnly(name: string, stop: () => unknown): Extension {
  return extension(name, () => {}, stop);
}

/** The hub's own API as the Home Assistant link calls it: a POST with the link's token. */
function apiCaller(app: FastifyInstance) {
  return (path: string, token: string, payload: object) =>
    app.inject({
      method: 'POST',
      url: `${API_PREFIX}${path}`,
      headers: { authorization: `Bearer ${token}` },
      payload,
    });
}

/**
 * Cluster mode: the connection to Redis (open, heartbeat, sweep), with the invalidations of the
 * caches shared with the other hubs. The cluster's modules are loaded here, only in cluster mode.
 */
async function clusterExtension(
  settings: ClusterSettings,
  ctx: HubServices,
): Promise<Extension & { cluster: Cluster }> {
  const [{ Cluster }, { shareInvalidations }, { minKeepaliveSeconds, offlineBoundMs }] = await Promise.all([
    import('./cluster/cluster.js'),
    import('./cluster/shared-state.js'),
    import('./cluster/timing.js'),
  ]);
  const cluster = new Cluster(settings, ctx.logger);
  return {
    name: 'cluster',
    cluster,
    async start() {
      await cluster.open();
      cluster.start();
      shareInvalidations(cluster, { counts: ctx.caches.counts, auth: ctx.auth, signals: ctx.signals });
      ctx.logger.info(
        {
          node: cluster.nodeId,
          ...cluster.timing,
          offlineBoundMs: offlineBoundMs(cluster.timing),
          minKeepaliveSeconds: minKeepaliveSeconds(cluster.timing),
        },
        'cluster mode: sharing state through PostgreSQL and Redis',
      );
    },
    stop: () => cluster.close(),
  };
}

/** Cluster mode: the periodic-jobs lock; the hub holding it runs `tasks`. */
async function leadershipExtension(
  url: string,
  schema: string | undefined,
  logger: Logger,
  tasks: LeaderTask[],
): Promise<Extension & { leadership: Leadership }> {
  const { Leadership } = await import('./cluster/leadership.js');
  const leadership = new Leadership({ url, schema, logger, tasks });
  return {
    name: 'leadership',
    leadership,
    start: async () => leadership.start(),
    stop: () => leadership.stop(),
  };
}
