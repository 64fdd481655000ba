import { join, resolve } from 'node:path';
import type { NotificationTiming } from './notifications/worker.js';
import { parseConfig } from '@makerspace/shared';
import { z } from 'zod';
import { type HomeAssistantSettings, homeAssistantFromEnv } from './home-assistant/ha.settings.js';
import type { AuthThrottleSettings } from './http/auth-throttle.js';
import { type HttpLimits, parseTrustProxy } from './http/server-options.js';
import type { WebhookSettings } from './webhooks/worker.js';
import type { ClusterSettings } from './cluster/cluster.js';
import { defaultClusterTiming, minHeartbeatsPerTtl } from './cluster/timing.js';

const port = z.coerce.number().int().min(0).max(65535);
/** A duration in whole milliseconds between `min` and `max`. */
const ms = (min: number, max: number) =>
  z.coerce
    .number({ error: 'a whole number of milliseconds' })
    .int('a whole number of milliseconds')
    .min(min, `at least ${min} (milliseconds)`)
    .max(max, `at most ${max} (milliseconds)`);

const Env = z.object({
  HUB_HTTP_HOST: z.string().default('0.0.0.0'),
  HUB_HTTP_PORT: port.default(8080),
  HUB_MQTT_HOST: z.string().optional(),
  HUB_MQTT_PORT: port.default(1883),
  HUB_DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  HUB_PUBLIC_URL: z.url().optional(),
  HUB_SECRET_FILE: z.string().optional(),
  HUB_AGENT_RELEASE_DIR: z.string().min(1).optional(),
  HUB_WEBHOOK_ALLOW_INSECURE: z.enum(['0', '1', 'true', 'false', '']).default('0'),
  HUB_SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: 'expected smtp://host:port or smtps://host:port' })
    .optional(),
  HUB_MAIL_FROM: z.string().min(3).optional(),
  HUB_INVITATION_DAYS: z.coerce
    .number({ error: 'a whole number of days' })
    .int('a whole number of days')
    .min(1, 'at least 1 (day)')
    .max(90, 'at most 90 (days)')
    .default(7),
  HUB_TRUST_PROXY: z.string().optional(),
  HUB_SQLITE_SYNCHRONOUS: z.enum(['full', 'normal']).default('full'),
  HUB_METRICS_TOKEN: z.string().min(16, 'at least 16 characters (e.g. openssl rand -hex 24)').optional(),
  // Cluster mode (docs/SCALING.md): several hubs on one PostgreSQL and one Redis.
  HUB_REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'expected redis://host:port or rediss://host:port' })
    .optional(),
  HUB_NODE_ID: z
    .string()
    .regex(
      /^[A-Za-z0-9_.-]{1,64}$/,
      'letters, digits, "_", "." and "-" only (at most 64), fixed per hub process',
    )
    .optional(),
  // How fast the hubs notice a dead one (cluster/timing.ts; docs/SCALING.md, "The offline bound").
  HUB_NODE_HEARTBEAT_MS: ms(100, 60_000).default(defaultClusterTiming.heartbeatMs),
  HUB_NODE_TTL_MS: ms(300, 600_000).default(defaultClusterTiming.nodeTtlMs),
  HUB_NODE_SWEEP_MS: ms(100, 60_000).default(defaultClusterTiming.sweepMs),
  // Stripe's API (tests point it at a local fake); default https://api.stripe.com.
  HUB_STRIPE_API_URL: z.url({ protocol: /^https?$/, error: 'expected http(s)://host[:port]' }).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface HubSettings {
  httpHost: string;
  httpPort: number;
  mqttHost: string;
  mqttPort: number;
  dataDir: string;
  databaseUrl: string;
  publicUrl: string | undefined;
  secretFile: string;
  /** HUB_AGENT_RELEASE_DIR: where the agent release bundle is (default agent/dist-release). */
  agentReleaseDir?: string;
  logLevel: string;
  /** HUB_SMTP_URL: the mail server for sign-in links and invitations (none: links are handed to admins). */
  smtpUrl?: string;
  /** HUB_MAIL_FROM: sender of the hub's mail. */
  mailFrom?: string;
  /** HUB_INVITATION_DAYS: how long an invitation link stays valid (7 days by default; sign-in links stay 15 minutes). */
  invitationDays?: number;
  /** HUB_METRICS_TOKEN: the bearer token Prometheus sends to GET /metrics (none: /metrics is off). */
  metricsToken?: string;
  /** SQLite durability: 'full' (default) or 'normal' (see docs/OPERATIONS.md). */
  sqliteSynchronous?: 'full' | 'normal';
  /** HUB_WEBHOOK_ALLOW_INSECURE=1: webhooks may use http:// and loopback receivers (development). */
  webhookAllowInsecure?: boolean;
  /** HUB_TRUST_PROXY: reverse proxies whose X-Forwarded-* headers count (none by default). */
  trustProxy?: string[];
  /** Failed-authentication throttling (tests tighten it); defaults in http/auth-throttle.ts. */
  authThrottle?: Partial<AuthThrottleSettings>;
  /** SQLite WAL checkpoint (with truncate) interval; 5 minutes by default. */
  walCheckpointMs?: number;
  /** HTTP body limit and timeouts; defaults in http/server-options.ts (tests shorten them). */
  httpLimits?: Partial<HttpLimits>;
  /** HUB_HA_MQTT_URL and its token: Home Assistant discovery on the operator's broker (none: off). */
  homeAssistant?: HomeAssistantSettings;
  /** Webhook delivery timing (retry delays, timeouts); tests shorten them. Defaults in webhooks/worker.ts. */
  webhookTuning?: Partial<Omit<WebhookSettings, 'allowInsecure'>>;
  /** Mail notification timing (polling, retries, periodic checks); tests shorten it. Defaults in notifications/worker.ts. */
  notificationTuning?: Partial<NotificationTiming>;
  /**
   * Cluster mode: HUB_REDIS_URL and HUB_NODE_ID, on PostgreSQL, with the liveness timing
   * HUB_NODE_HEARTBEAT_MS, HUB_NODE_TTL_MS and HUB_NODE_SWEEP_MS (none: one process, state in memory).
   */
  cluster?: ClusterSettings;
  /** HUB_STRIPE_API_URL: where Stripe's API answers (default https://api.stripe.com; tests use a local fake). */
  stripeApiUrl?: string;
}

/** Cluster mode needs all three: PostgreSQL, Redis and a fixed node id. */
function clusterProblems(v: { DATABASE_URL?: string; HUB_REDIS_URL?: string; HUB_NODE_ID?: string }) {
  const problems: [string, string][] = [];
  if (!v.HUB_REDIS_URL && !v.HUB_NODE_ID) return problems;
  if (!v.HUB_REDIS_URL)
    problems.push(['HUB_REDIS_URL', 'HUB_NODE_ID is set: cluster mode also needs HUB_REDIS_URL']);
  if (!v.HUB_NODE_ID)
    problems.push([
      'HUB_NODE_ID',
      'HUB_REDIS_URL is set: cluster mode needs a fixed HUB_NODE_ID per hub process',
    ]);
  if (!/^postgres(ql)?:\/\//.test(v.DATABASE_URL ?? ''))
    problems.push([
      'DATABASE_URL',
      'cluster mode (HUB_REDIS_URL) needs a PostgreSQL DATABASE_URL (postgres://...)',
    ]);
  return problems;
}

/** Reads the hub's settings from the environment (DESIGN 3); every problem is reported at once. */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): HubSettings {
  const e = parseConfig(
    Env.superRefine((v, issues) => {
      const scheme = v.DATABASE_URL ? /^([a-z][a-z0-9+.-]+):/i.exec(v.DATABASE_URL)?.[1] : undefined;
      if (scheme && !['sqlite', 'postgres', 'postgresql'].includes(scheme.toLowerCase()))
        issues.addIssue({
          code: 'custom',
          path: ['DATABASE_URL'],
          message: `unknown scheme "${scheme}:"; use a SQLite file path, sqlite:PATH, or postgres://user@host/db`,
        });
      else if (scheme && /^postgres/i.test(scheme) && !/^postgres(ql)?:\/\//.test(v.DATABASE_URL ?? ''))
        issues.addIssue({
          code: 'custom',
          path: ['DATABASE_URL'],
          message: 'a PostgreSQL URL starts with postgres:// or postgresql://',
        });
      for (const [path, message] of clusterProblems(v))
        issues.addIssue({ code: 'custom', path: [path], message });
      if (v.HUB_NODE_TTL_MS < minHeartbeatsPerTtl * v.HUB_NODE_HEARTBEAT_MS)
        issues.addIssue({
          code: 'custom',
          path: ['HUB_NODE_TTL_MS'],
          message: `must cover at least ${minHeartbeatsPerTtl} heartbeats (${minHeartbeatsPerTtl} x HUB_NODE_HEARTBEAT_MS = ${minHeartbeatsPerTtl * v.HUB_NODE_HEARTBEAT_MS} ms), so a late beat is not taken for a dead hub`,
        });
      for (const message of parseTrustProxy(v.HUB_TRUST_PROXY).problems)
        issues.addIssue({ code: 'custom', path: ['HUB_TRUST_PROXY'], message });
    }),
    env,
    'environment',
  );
  const dataDir = resolve(e.HUB_DATA_DIR);
  return {
    httpHost: e.HUB_HTTP_HOST,
    httpPort: e.HUB_HTTP_PORT,
    mqttHost: e.HUB_MQTT_HOST ?? e.HUB_HTTP_HOST,
    mqttPort: e.HUB_MQTT_PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL ?? join(dataDir, 'hub.sqlite'),
    publicUrl: e.HUB_PUBLIC_URL?.replace(/\/+$/, ''),
    secretFile: e.HUB_SECRET_FILE ?? join(dataDir, 'secret.key'),
    agentReleaseDir: e.HUB_AGENT_RELEASE_DIR ? resolve(e.HUB_AGENT_RELEASE_DIR) : undefined,
    logLevel: e.LOG_LEVEL,
    smtpUrl: e.HUB_SMTP_URL,
    metricsToken: e.HUB_METRICS_TOKEN,
    mailFrom: e.HUB_MAIL_FROM,
    invitationDays: e.HUB_INVITATION_DAYS,
    sqliteSynchronous: e.HUB_SQLITE_SYNCHRONOUS,
    trustProxy: parseTrustProxy(e.HUB_TRUST_PROXY).proxies,
    webhookAllowInsecure: e.HUB_WEBHOOK_ALLOW_INSECURE === '1' || e.HUB_WEBHOOK_ALLOW_INSECURE === 'true',
    homeAssistant: homeAssistantFromEnv(env),
    stripeApiUrl: e.HUB_STRIPE_API_URL,
    ...(e.HUB_REDIS_URL && e.HUB_NODE_ID
      ? {
          cluster: {
            redisUrl: e.HUB_REDIS_URL,
            nodeId: e.HUB_NODE_ID,
            heartbeatMs: e.HUB_NODE_HEARTBEAT_MS,
            nodeTtlMs: e.HUB_NODE_TTL_MS,
            sweepMs: e.HUB_NODE_SWEEP_MS,
          },
        }
      : {}),
  };
}
