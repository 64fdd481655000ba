import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@makerspace/shared';
import aedesPersistenceRedis from 'aedes-persistence-redis';
import { Redis } from 'ioredis';
import mqemitterRedis from 'mqemitter-redis';
import { type FailureWindowsFactory, redisFailureWindows } from '../throttling/failure-windows.js';
import type { HeartbeatData } from './heartbeat-worker.js';
import { type ClusterTiming, defaultClusterTiming, minHeartbeatsPerTtl } from './timing.js';

/**
 * Cluster mode (docs/SCALING.md): several identical hubs on one PostgreSQL and one Redis. This
 * module holds what the hubs share through Redis: the broker's fan-out and persistence, a
 * message bus between hubs, which hub holds which bridge (presence), which hub waits for which
 * command reply, and each hub's liveness. Without HUB_REDIS_URL none of it exists.
 */
export interface ClusterSettings {
  redisUrl: string;
  /** HUB_NODE_ID: fixed per hub process; also the embedded broker's id. */
  nodeId: string;
  /** How often this hub writes its liveness key (default 1 s; timing.ts). */
  heartbeatMs?: number;
  /** A hub not heard from for this long is dead and its bridges offline (default 3 s). */
  nodeTtlMs?: number;
  /** How often each hub looks for dead hubs and refreshes its view of presence (default 1 s). */
  sweepMs?: number;
  /** Prefix of the hub's own Redis keys and channels (default `makerspace:`). */
  prefix?: string;
}

/** Which hub holds a bridge's connection, and the bridge's clock offset learnt there. */
export interface Presence {
  node: string;
  offsetMs: number;
}

export type BusMessage =
  | { k: 'presence'; r: number; node: string | null; o?: number }
  | { k: 'signals'; ids: number[] }
  | { k: 'counts'; tables: string[] }
  | { k: 'auth' }
  | { k: 'reply'; r: number; reply: unknown }
  | { k: 'disconnect'; r: number };

type Handler = (message: BusMessage, from: string) => void;

// Compare-and-delete: a hub releases a bridge only while the bridge is still its own.
const RELEASE = `local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and string.sub(v, 1, string.len(ARGV[2]) + 1) == ARGV[2] .. '|' then
  redis.call('HDEL', KEYS[1], ARGV[1]) return 1 end
return 0`;

const connectOptions = { maxRetriesPerRequest: 1, connectTimeout: 5_000, lazyConnect: true } as const;

export class Cluster {
  readonly nodeId: string;
  private readonly prefix: string;
  /** Heartbeat, node TTL and sweep: together they bound how late a dead hub's bridges go offline. */
  readonly timing: ClusterTiming;
  /** Commands: fail fast while Redis is away (the hub answers 503 rather than hang). */
  private readonly redis: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Handler[]>();
  private mirror = new Map<number, Presence>();
  private timers: NodeJS.Timeout[] = [];
  private heartbeat: Worker | null = null;
  private sweeping: Promise<void> | null = null;
  private heardDuringRefresh: (BusMessage & { k: 'presence' })[] | null = null;
  private closed = false;
  private lastError = 0;
  private opened = false;
  private connectError: Error | undefined;
  /** Called for each bridge whose hub died, after this hub won its release (marks it offline). */
  onOrphan: (resourceId: number) => Promise<void> = async () => {};

  constructor(
    private readonly settings: ClusterSettings,
    private readonly logger: Logger,
  ) {
    this.nodeId = settings.nodeId;
    this.prefix = settings.prefix ?? 'makerspace:';
    this.timing = {
      heartbeatMs: settings.heartbeatMs ?? defaultClusterTiming.heartbeatMs,
      nodeTtlMs: settings.nodeTtlMs ?? defaultClusterTiming.nodeTtlMs,
      sweepMs: settings.sweepMs ?? defaultClusterTiming.sweepMs,
    };
    this.redis = new Redis(settings.redisUrl, { ...connectOptions, enableOfflineQueue: false });
    this.sub = new Redis(settings.redisUrl, { ...connectOptions });
    for (const conn of [this.redis, this.sub])
      conn.on('error', (err) => {
        if (!this.opened) this.connectError ??= err;
        else this.reportError(err);
      });
    this.sub.on('messageBuffer', (_channel: Buffer, payload: Buffer) => this.receive(payload));
  }

  /** Connects to Redis (a start-up that cannot reach it fails within 5 s, saying why). */
  async open(): Promise<void> {
    try {
      await Promise.all([this.redis.connect(), this.sub.connect()]);
    } catch (err) {
      this.redis.disconnect();
      this.sub.disconnect();
      throw new Error(
        `cannot reach Redis at HUB_REDIS_URL: ${(this.connectError ?? (err as Error)).message}`,
      );
    }
    this.opened = true;
    await this.sub.subscribe(this.channel('bus'), this.channel(`node:${this.nodeId}`));
    await this.beat();
    await this.refresh();
  }

  /** The broker's message fan-out through Redis pub/sub (at most once). */
  createEmitter(): unknown {
    const emitter = mqemitterRedis({ connectionString: this.settings.redisUrl });
    // Its connection errors are emitted on `state`: unheard, they would end the process.
    (emitter as unknown as { state: NodeJS.EventEmitter }).state.on('error', (err) => this.reportError(err));
    return emitter;
  }

  /** The broker's retained messages, wills and subscriptions in Redis. */
  createPersistence(): unknown {
    const conn = new Redis(this.settings.redisUrl, { lazyConnect: false });
    conn.on('error', (err) => this.reportError(err));
    return aedesPersistenceRedis({ conn });
  }

  /** Failure counters (lock-outs) that every hub shares. */
  failureWindows(): FailureWindowsFactory {
    return redisFailureWindows(this.redis, this.prefix, this.nodeId);
  }

  /** True while Redis answers (GET /ready). */
  isReady(): boolean {
    return this.redis.status === 'ready' && this.sub.status === 'ready';
  }

  /** Starts the heartbeat and the sweep for dead hubs. */
  start(): void {
    this.startHeartbeat();
    this.timers.push(setInterval(() => void this.sweep(), this.timing.sweepMs));
    for (const t of this.timers) t.unref();
  }

  /**
   * The liveness key is written from a worker thread with a Redis connection of its own, so a
   * busy or paused main event loop (a long synchronous task, a GC pause, a loaded machine) does
   * not delay the beats and get this hub declared dead (docs/DECISIONS.md, "The offline bound").
   * The worker stops vouching for the hub once the main loop has been silent for `mainStallMs`.
   */
  private startHeartbeat(): void {
    const { heartbeatMs, nodeTtlMs } = this.timing;
    const mainTick = new SharedArrayBuffer(8);
    const tick = new BigInt64Array(mainTick);
    const touch = () => Atomics.store(tick, 0, BigInt(Date.now()));
    touch();
    this.timers.push(setInterval(touch, heartbeatMs));
    const script = new URL('./heartbeat-worker.js', import.meta.url);
    // Run from the TypeScript sources (no compiled worker beside this file): beat on this thread.
    if (!existsSync(script)) {
      this.beatOnMainThread();
      return;
    }
    const data: HeartbeatData = {
      redisUrl: this.settings.redisUrl,
      key: this.key(`node:${this.nodeId}`),
      heartbeatMs,
      nodeTtlMs,
      mainStallMs: Math.max(10_000, minHeartbeatsPerTtl * heartbeatMs),
      mainTick,
    };
    const worker = new Worker(script, { workerData: data });
    worker.unref();
    worker.on('error', (err) => {
      this.logger.error({ err }, 'cluster heartbeat thread failed: beating on the main thread');
      if (this.heartbeat === worker) this.heartbeat = null;
      if (!this.closed) this.beatOnMainThread();
    });
    this.heartbeat = worker;
  }

  private beatOnMainThread(): void {
    const timer = setInterval(() => void this.beat().catch(() => {}), this.timing.heartbeatMs);
    timer.unref();
    this.timers.push(timer);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    // Stopped before the key is deleted, so no late beat writes it again.
    await this.heartbeat?.terminate();
    this.heartbeat = null;
    await this.sweeping;
    // Leaving on purpose: the others need not wait for the heartbeat to run out.
    await this.redis.del(this.key(`node:${this.nodeId}`)).catch(() => {});
    this.redis.disconnect();
    this.sub.disconnect();
  }

  on(kind: BusMessage['k'], handler: Handler): void {
    const list = this.handlers.get(kind) ?? [];
    list.push(handler);
    this.handlers.set(kind, list);
  }

  /** To every other hub (at most once: what depends on it has its own deadline or refresh). */
  send(message: BusMessage): void {
    this.redis.publish(this.channel('bus'), this.encode(message)).catch((err) => this.reportError(err));
  }

  sendTo(node: string, message: BusMessage): Promise<unknown> {
    return this.redis.publish(this.channel(`node:${node}`), this.encode(message));
  }

  // --- presence -------------------------------------------------------------------------------

  /** This hub holds the bridge now (the newest connection wins). */
  async claim(resourceId: number, offsetMs = 0): Promise<void> {
    const value = `${this.nodeId}|${Math.round(offsetMs)}`;
    await this.redis.hset(this.key('presence'), String(resourceId), value);
    this.mirror.set(resourceId, { node: this.nodeId, offsetMs });
    this.send({ k: 'presence', r: resourceId, node: this.nodeId, o: offsetMs });
  }

  /** Gives the bridge up if it is still this hub's; true when it was (then it is offline). */
  async release(resourceId: number, node = this.nodeId): Promise<boolean> {
    const released =
      (await this.redis.eval(RELEASE, 1, this.key('presence'), String(resourceId), node)) === 1;
    if (released) {
      if (this.mirror.get(resourceId)?.node === node) this.mirror.delete(resourceId);
      this.send({ k: 'presence', r: resourceId, node: null });
    }
    return released;
  }

  /** Releases every bridge this node id held (a restart after a crash); returns their ids. */
  async releaseAllOfThisNode(): Promise<number[]> {
    const all = await this.redis.hgetall(this.key('presence'));
    const mine: number[] = [];
    for (const [field, value] of Object.entries(all)) {
      if (value.startsWith(`${this.nodeId}|`) && (await this.release(Number(field))))
        mine.push(Number(field));
    }
    return mine;
  }

  /** The hub holding the bridge, as this hub last heard; null when none (or Redis is away). */
  holder(resourceId: number): Presence | null {
    if (!this.isReady()) return null;
    return this.mirror.get(resourceId) ?? null;
  }

  /** Which bridges some hub holds now, read from Redis (not the mirror). */
  async holders(): Promise<Set<number>> {
    return new Set(Object.keys(await this.redis.hgetall(this.key('presence'))).map(Number));
  }

  /** How many bridges the cluster holds. */
  presenceCount(): number {
    return this.mirror.size;
  }

  // --- command replies ------------------------------------------------------------------------

  /** This hub waits for the reply to `commandId` for `ms` (the bridge's hub forwards it here). */
  async awaitReply(commandId: string, ms: number): Promise<void> {
    await this.redis.set(this.key(`cmd:${commandId}`), this.nodeId, 'PX', Math.max(1, Math.ceil(ms)));
  }

  async replySettled(commandId: string): Promise<void> {
    await this.redis.del(this.key(`cmd:${commandId}`)).catch(() => {});
  }

  /** The hub waiting for the reply, if any still does. */
  async replyWaiter(commandId: string): Promise<string | null> {
    return this.redis.get(this.key(`cmd:${commandId}`));
  }

  // --- internals ------------------------------------------------------------------------------

  private key(name: string): string {
    return `${this.prefix}${name}`;
  }

  private channel(name: string): string {
    return `${this.prefix}${name}`;
  }

  private encode(message: BusMessage): string {
    return JSON.stringify({ from: this.nodeId, m: message });
  }

  private receive(payload: Buffer): void {
    let parsed: { from: string; m: BusMessage };
    try {
      parsed = JSON.parse(payload.toString('utf8'));
    } catch {
      return;
    }
    if (!parsed?.m || parsed.from === this.nodeId) return;
    const message = parsed.m;
    if (message.k === 'presence') {
      this.applyPresence(message);
      // A refresh under way would overwrite this with its older snapshot: it applies it again.
      this.heardDuringRefresh?.push(message);
    }
    for (const handler of this.handlers.get(message.k) ?? []) {
      try {
        handler(message, parsed.from);
      } catch (err) {
        this.logger.error({ err, kind: message.k }, 'a cluster message handler failed');
      }
    }
  }

  private applyPresence(message: BusMessage & { k: 'presence' }): void {
    if (message.node === null) this.mirror.delete(message.r);
    else this.mirror.set(message.r, { node: message.node, offsetMs: message.o ?? 0 });
  }

  private async beat(): Promise<void> {
    await this.redis.set(this.key(`node:${this.nodeId}`), '1', 'PX', this.timing.nodeTtlMs);
  }

  /** Looks for bridges held by dead hubs (releases them) and refreshes the presence mirror. */
  sweep(): Promise<void> {
    this.sweeping ??= this.refresh()
      .catch((err) => this.reportError(err))
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  private async refresh(): Promise<void> {
    if (this.closed) return;
    this.heardDuringRefresh = [];
    try {
      await this.refreshFromRedis();
    } finally {
      this.heardDuringRefresh = null;
    }
  }

  private async refreshFromRedis(): Promise<void> {
    const all = await this.redis.hgetall(this.key('presence'));
    const entries = Object.entries(all).map(([field, value]) => {
      const bar = value.lastIndexOf('|');
      return { r: Number(field), node: value.slice(0, bar), offsetMs: Number(value.slice(bar + 1)) || 0 };
    });
    const nodes = [...new Set(entries.map((e) => e.node))];
    const alive = new Set<string>();
    if (nodes.length > 0) {
      const beats = await this.redis.mget(...nodes.map((n) => this.key(`node:${n}`)));
      nodes.forEach((n, i) => {
        if (beats[i] !== null || n === this.nodeId) alive.add(n);
      });
    }
    const mirror = new Map<number, Presence>();
    for (const e of entries) {
      if (alive.has(e.node)) {
        mirror.set(e.r, { node: e.node, offsetMs: e.offsetMs });
        continue;
      }
      // Its hub stopped beating: whichever hub releases it first marks it offline.
      if (await this.release(e.r, e.node)) {
        this.logger.warn({ resourceId: e.r, node: e.node }, 'hub stopped: its bridge is offline');
        await this.onOrphan(e.r).catch((err) =>
          this.logger.error({ err, resourceId: e.r }, 'marking a bridge of a stopped hub offline failed'),
        );
      }
    }
    this.mirror = mirror;
    for (const message of this.heardDuringRefresh ?? []) this.applyPresence(message);
  }

  private reportError(err: unknown): void {
    if (this.closed) return;
    const at = Date.now();
    if (at - this.lastError < 5_000) return;
    this.lastError = at;
    this.logger.error({ err }, 'Redis unavailable: cluster state is stale until it returns');
  }
}
