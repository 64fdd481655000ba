import type { BridgeConfig, Command, CommandReply, Logger, UpdateRequest } from '@makerspace/shared';
import type { Db } from './db/crud.js';
import type { Storage } from './db/database.js';
import type { HubMetrics } from './observability/metrics.js';
import type { TokenBox } from './secrets.js';
import type { EventBus } from './db/outbox.js';

import type { Clock } from './clock.js';

// The clock port is a kernel module (storage stamps with it too); here with the other ports.
export { type Clock, systemClock } from './clock.js';

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

/**
 * The relay port: how areas reach the bridges (the embedded broker implements it, broker/).
 */
export interface BridgeLink {
  isOnline(resourceId: number): boolean;
  /** True while the broker runs and accepts bridges. */
  isRunning(): boolean;
  /** The bridge's clock minus the hub's (ms), learnt at its connect; 0 when unknown. */
  clockOffsetMs(resourceId: number): number;
  /** Publishes a command and waits for the agent's reply; null when none came in time. */
  sendCommand(resourceId: number, command: Command, timeoutMs: number): Promise<CommandReply | null>;
  /** Whether a hub (this one, or another of the cluster) still waits for the reply to this command. */
  replyAwaited(commandId: string): Promise<boolean>;
  /**
   * Re-publishes the resource's retained config (after any change that affects it): `config`
   * when given (made by resources/bridge-config.ts), else the current one.
   */
  publishConfig(resourceId: number, config?: BridgeConfig): Promise<void>;
  /** Disconnects every connection of the resource's bridge at once (key rotated or revoked, resource deleted). */
  disconnect(resourceId: number): void;
  /** Clears everything retained for a deleted resource and disconnects its agent. */
  forget(resourceId: number): Promise<void>;
  /** Tells the bridge's agent to install a release (resources/agent-updates.ts). */
  publishUpdate(resourceId: number, update: UpdateRequest): Promise<void>;
}

/**
 * Serialised records by table, id and lockVersion (http/caches.ts implements it): a changed
 * record has a new key, so a cached text is never stale.
 */
export interface RecordTexts {
  get(table: string, id: number, version: number): string | undefined;
  set(table: string, id: number, version: number, json: string): void;
}

/** List totals (X-Total-Count) per table and query (http/caches.ts implements it). */
export interface ListCounts {
  /** The cached total of `key`, else `compute()`'s answer, kept for a short while. */
  count(table: string, key: string, compute: () => Promise<number>): Promise<number>;
  /** The table changed: its totals must be counted again. */
  touch(table: string): void;
}

/** The caches of the hot list paths. */
export interface Caches {
  records: RecordTexts;
  counts: ListCounts;
}

/** How webhook deliveries are timed (webhooks/worker.ts). Production defaults there; tests shorten them. */
export interface WebhookSettings {
  /** HUB_WEBHOOK_ALLOW_INSECURE: allow http:// and loopback receivers. */
  allowInsecure: boolean;
  /** A receiver must answer completely within this time. */
  timeoutMs: number;
  /** The outbox is read this often (and at once after a commit that emitted events). */
  pollIntervalMs: number;
  /** First retry delay; it doubles per failed attempt up to retryMaxMs, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Failed attempts in a row after which the webhook shows as `failing`. */
  failingAfter: number;
  /** A webhook that has failed for this long is `deactivated`; later events queue. */
  deactivateAfterMs: number;
  /** Finished deliveries (and events no webhook still waits for) are kept this long. */
  retentionMs: number;
}

/**
 * The billing port: how an area that records use has it charged in its own transaction, without
 * importing billing/ (which implements it: `usageCharges` in billing/charges.ts).
 */
export interface UsageCharges {
  /** Charges a booking's fee once (marks the booking charged); nothing for a free or cancelled one. */
  chargeBooking(trx: Db, bookingId: number): Promise<void>;
  /** Charges a stopped session's use (resource log), once; nothing when free or not a member's. */
  chargeSession(trx: Db, logId: number): Promise<void>;
  /** A bridge's extra charge for a stopped session (one per session whatever the bridge resends). */
  chargeSessionExtra(trx: Db, extra: SessionExtraCharge): Promise<void>;
}

/**
 * Card taps another area waits for (a trainer's "the trainee taps their card now"), asked at each
 * tap of a known card before the access policy, without resources/ importing that area:
 * spaces/training-taps.ts implements it (`trainingTapClaims`) and hub.ts puts it in the context.
 */
export interface TapClaims {
  /** The message that answers a tap a wait claimed, or null: the access policy decides the tap. */
  claim(ctx: HubContext, resourceId: number, memberId: number, at: Date): Promise<string | null>;
}

/** An allowed tap at a door, as the presence port hears of it (in the transaction of its log). */
export interface DoorTap {
  account: number;
  space: number;
  resource: number;
  /** The door checks members in and out (`resources.entrance`). */
  entrance: boolean;
  unlockMode: string;
  member: number;
  at: Date;
}

export interface DoorTapOutcome {
  /** The tap checked the member in or out; null: not an entrance. */
  checkIn: 'in' | 'out' | null;
  /** A firstIn door's first entry of the day: its unlock window opened (the agent must hear of it). */
  windowOpened: boolean;
}

/**
 * Presence and door modes (presence/ implements it as `presencePort`; hub.ts puts it in the
 * context): card taps at entrances check members in and out, and a door's config carries the
 * window its relay is held unlocked, without resources/ importing that area.
 */
export interface PresencePort {
  doorTapped(trx: Db, tap: DoorTap): Promise<DoorTapOutcome>;
  /** The window the door's relay is held on at `at`, or null (tap-only doors, machines). */
  doorWindow(
    db: Db,
    door: { id: number; account: number; space: number; controlType: string; unlockMode: string },
    at: Date,
  ): Promise<{ unlockMode: 'openingHours' | 'firstIn'; until: Date } | null>;
}

export interface SessionExtraCharge {
  logId: number;
  memberId: number;
  /** What the member reads on the charge. */
  description: string;
  /** In cents of a cent (the money type of kernel/money.ts). */
  price: bigint;
  at: string;
}

/** A payment that was received or failed (the notifications port). */
export interface PaymentNotice {
  account: number;
  member: number;
  /** The payment's id when it is recorded as one. */
  paymentId?: number | null;
  /** The amount as the API writes money ("45.00"). */
  total: string;
  currency?: string;
  outcome: 'received' | 'failed';
  /** Why it failed, as the member may read it (e.g. "card declined"). */
  reason?: string;
  /** Now, on the hub's clock (ISO). */
  at: string;
}

/**
 * The notifications port: how an area has a mail queued in its own transaction without
 * importing notifications/ (which implements it and reads the areas; docs/NOTIFICATIONS.md).
 */
export interface Notifications {
  /** The member hears of a received or failed payment; the admins of a failed one too. */
  payment(trx: Db, notice: PaymentNotice): Promise<void>;
  /** The member hears that their key card was reported lost and is blocked. */
  cardLost(trx: Db, card: { account: number; member: number; at: string }): Promise<void>;
}

/**
 * The ports every area reads (storage, clock, relay, events, ...), passed in (no module
 * singletons). Domain services are added on top where they are used: the access policy in
 * access/policy.ts (PolicyContext), sessions and mail in sign-in/context.ts, the authenticator
 * for HTTP in http/services.ts.
 */
export interface HubContext {
  storage: Storage;
  db: Db;
  tokens: TokenBox;
  logger: Logger;
  clock: Clock;
  /** The embedded broker's view of connected bridges. */
  bridges: BridgeLink;
  /** Serialised records and list totals (hot list paths). */
  caches: Caches;
  /** Base for absolute links (Link headers, calendar URLs); from HUB_PUBLIC_URL. */
  publicUrl?: string;
  /** Tells the live channel that a resource's state may have changed (bridge, relay, session). */
  signals: ResourceSignals;
  /** Webhook events: `ctx.events.transaction(trx => change + emitEvent(trx, ...))` (db/outbox.ts). */
  events: EventBus;
  /** Charges for use recorded by other areas (bookings, sessions). */
  charges: UsageCharges;
  /** Card taps another area waits for (a trainer's tap-to-record). */
  taps: TapClaims;
  /** Check-ins at entrances and doors held unlocked (presence/). */
  presence: PresencePort;
  /** Mails to members and admins, queued in the caller's transaction (notifications/). */
  notifications: Notifications;
  /** Webhook delivery settings, including HUB_WEBHOOK_ALLOW_INSECURE (`allowInsecure`). */
  webhooks: WebhookSettings;
  /**
   * Base of the links the hub mails: HUB_PUBLIC_URL, else http://localhost:<HTTP port>. Never
   * taken from request headers (a forged Host must not redirect a reset mail).
   */
  linkBase: string;
  /** Prometheus metrics (GET /metrics). */
  metrics: HubMetrics;
  /** Hash of HUB_METRICS_TOKEN; GET /metrics answers 404 without one. */
  metricsTokenHash?: string;
  /** HUB_AGENT_RELEASE_DIR: where the agent release bundle is (default agent/dist-release). */
  agentReleaseDir?: string;
}
