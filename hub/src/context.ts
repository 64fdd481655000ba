import type { Logger } from '@makerspace/shared';
import type { AccessPolicy } from './access/policy.js';
import type { BridgeLink } from './broker/bridge-broker.js';
import type { Db } from './db/crud.js';
import type { Storage } from './db/database.js';
import type { Caches } from './http/caches.js';
import type { Authenticator } from './identity/authenticator.js';
import type { HubMetrics } from './observability/metrics.js';
import type { TokenBox } from './secrets.js';
import type { Mailer } from './sign-in/mailer.js';
import type { SessionStore } from './sign-in/sessions.js';
import type { SignInThrottles } from './sign-in/throttle.js';
import type { EventBus } from './webhooks/events.js';
import type { WebhookSettings } from './webhooks/worker.js';

/** A clock the policy, billing and session code read, so tests can set the time. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/**
 * In-process notices that a resource's live state changed. The broker and the switch-on code
 * raise them after their writes commit; the live channel listens (DESIGN 11).
 */
export class ResourceSignals {
  private readonly listeners = new Set<(resourceId: number) => void>();

  changed(resourceId: number): void {
    for (const listener of this.listeners) listener(resourceId);
  }

  onChange(listener: (resourceId: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Everything a route or service needs, passed in (no module singletons). */
export interface HubContext {
  storage: Storage;
  db: Db;
  tokens: TokenBox;
  auth: Authenticator;
  logger: Logger;
  clock: Clock;
  /** The access decision of DESIGN 5 (switch-on, card taps, bridge API). */
  policy: AccessPolicy;
  /** The embedded broker's view of connected bridges. */
  bridges: BridgeLink;
  /** Serialised records and list totals (hot list paths). */
  caches: Caches;
  /** Base for absolute links (Link headers, calendar URLs); from HUB_PUBLIC_URL. */
  publicUrl?: string;
  /** Tells the live channel that a resource's state may have changed (bridge, relay, session). */
  signals: ResourceSignals;
  /** Webhook events: `ctx.events.transaction(trx => change + emitEvent(trx, ...))` (webhooks/events.ts). */
  events: EventBus;
  /** Webhook delivery settings, including HUB_WEBHOOK_ALLOW_INSECURE (`allowInsecure`). */
  webhooks: WebhookSettings;
  /** Browser sessions; `ctx.sessions.onRevoked(ids => ...)` hears of every revocation. */
  sessions: SessionStore;
  /** Outgoing mail (HUB_SMTP_URL); null when none is configured. */
  mailer: Mailer | null;
  /** Counters for failed logins and sign-in link requests. */
  throttles: SignInThrottles;
  /**
   * Base of the links the hub mails: HUB_PUBLIC_URL, else http://localhost:<HTTP port>. Never
   * taken from request headers (a forged Host must not redirect a reset mail).
   */
  linkBase: string;
  /** Prometheus metrics (GET /metrics). */
  metrics: HubMetrics;
  /** Hash of HUB_METRICS_TOKEN; GET /metrics answers 404 without one. */
  metricsTokenHash?: string;
}
