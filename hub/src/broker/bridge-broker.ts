import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { createServer, type Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  type BridgeConfig,
  type BridgeMessage,
  bridgeClientId,
  bridgeTopic,
  type Command,
  type CommandReply,
  type DownTopicName,
  downTopicNames,
  encodeBridgeMessage,
  isUpTopicName,
  parseBridgeMessage,
  parseBridgeTopic,
  topicPublishOptions,
  type UpTopicName,
} from '@makerspace/shared';
import { Aedes, type Client } from 'aedes';
import type * as WebSocketModule from 'ws';
import { onFirstUse } from '../kernel/on-first-use.js';
import type { PolicyContext } from '../access/policy.js';
import type { BridgeLink } from '../context.js';
import { recordDuplicateDevice } from '../resources/bridge-duplicates.js';
import {
  bridgeKeyHash,
  bridgesFlaggedOnline,
  bridgeWithKey,
  markBridgesOffline,
} from '../resources/bridge-messages.js';
import { reconcileBridge, settleLateReply } from '../resources/switch-sessions.js';
import { bridgeConfigFor } from '../resources/bridge-config.js';
import { type BridgeMessageHandlers, createHandlers } from './bridge-handlers.js';
import { plainAddress, trustedProxies, webSocketClientAddress } from './client-address.js';
import { ConnectThrottle } from './connect-throttle.js';
import { TakeoverGuard } from './takeover-guard.js';
import type { Cluster } from '../cluster/cluster.js';
import { minKeepaliveSeconds, offlineBoundMs } from '../cluster/timing.js';

const webSocketLibrary = onFirstUse<typeof WebSocketModule>('ws');

type BridgeClient = Client & {
  resourceId?: number;
  /** The key hash the client authenticated with: checked again once it is ready. */
  keyHash?: string;
  /** Settles once the client is known to still hold a valid key (false: it was cut off). */
  verified?: Promise<boolean>;
  /** The first `state` after connect starts the reconciliation of switch-ons and sessions. */
  reconciled?: boolean;
  /** The bridge's clock minus the hub's, learnt from its `status` (ms). */
  clockOffsetMs?: number;
  /** Where it connects from (a trusted proxy's client, for WebSocket). */
  address?: string;
  /** Its CONNECT's keepalive (s); 0: none. */
  keepaliveSeconds?: number;
  /** It has subscribed to its commands topic: a command published now reaches it. */
  hearsCommands?: boolean;
  /** Commands waiting for that subscription (a bridge reads online from its CONNECT on). */
  awaitingSubscription?: (() => void)[];
  /** When it last sent a packet (hub clock, ms). */
  heardAt?: number;
};

export interface BridgeBrokerOptions {
  /** HUB_TRUST_PROXY: proxies whose X-Forwarded-For names a WebSocket client's address. */
  trustProxy?: readonly string[];
  /** Cluster mode: the broker joins the others through Redis (shared fan-out, retained, presence). */
  cluster?: Cluster;
}

const authError = (message: string, returnCode: 3 | 4 | 5) =>
  Object.assign(new Error(message), { returnCode });

/**
 * The embedded MQTT broker (aedes) for bridges, over TCP and over WebSocket at /mqtt. A bridge
 * logs in with its resource id and bridge API key and may publish only its own up-topics and
 * subscribe only to its own down-topics (DESIGN 7).
 */
export class BridgeBroker implements BridgeLink {
  private aedes: Aedes | null = null;
  private tcp: NetServer | null = null;
  private wss: WebSocketModule.WebSocketServer | null = null;
  private readonly clients = new Map<number, BridgeClient>();
  private readonly pending = new Map<
    string,
    { resourceId: number; resolve: (reply: CommandReply | null) => void }
  >();
  private handlers: BridgeMessageHandlers | null = null;
  /** Set by stop(): a key check finishing after it must not mark the bridge online again. */
  private stopping = false;
  /** The source address of each connection's stream. */
  private readonly addresses = new WeakMap<object, string>();
  private readonly trusted: (address: string) => boolean;
  private readonly throttle: ConnectThrottle;
  private readonly takeovers: TakeoverGuard;
  private readonly cluster: Cluster | null;
  private reconcileTimer: NodeJS.Timeout | null = null;
  /** Bridges already warned about a keepalive shorter than the cluster's offline bound covers. */
  private readonly warnedKeepalive = new Set<number>();

  constructor(
    private readonly ctx: PolicyContext,
    options: BridgeBrokerOptions = {},
  ) {
    this.trusted = trustedProxies(options.trustProxy ?? []);
    this.cluster = options.cluster ?? null;
    this.throttle = new ConnectThrottle(ctx.clock, undefined, this.cluster?.failureWindows());
    this.takeovers = new TakeoverGuard(ctx.clock);
  }

  async start(): Promise<void> {
    const cluster = this.cluster;
    if (cluster) {
      // Other hubs hold their bridges: only the ones this node id held before (a crash) are gone.
      const mine = await cluster.releaseAllOfThisNode();
      await markBridgesOffline(this.ctx, mine);
    } else {
      // Presence comes from live connections: after a start (a crash included) none are live yet.
      await markBridgesOffline(this.ctx, 'allOnline');
    }
    const aedes = await Aedes.createBroker({
      ...(cluster
        ? {
            // One broker id per hub; fan-out, retained messages and wills through Redis.
            id: cluster.nodeId,
            mq: cluster.createEmitter() as any,
            persistence: cluster.createPersistence() as any,
            heartbeatInterval: 5_000,
          }
        : {}),
      preConnect: (client, packet, done) => {
        (client as BridgeClient).keepaliveSeconds = packet.keepalive ?? 0;
        done(null, true);
      },
      authenticate: (client, username, password, done) => {
        this.authenticate(client as BridgeClient, username, password).then(
          (result) =>
            result === 'ok'
              ? done(null, true)
              : result === 'wrongClientId'
                ? // A bridge's client id is bound to its key: another id could take over a session.
                  done(authError('The client id must be bridge-{resource id}', 5), false)
                : result === 'throttled'
                  ? // MQTT 3.1.1 has no "server busy" (MQTT 5's 0x89); 3 is the code clients retry later.
                    done(authError('Too many failed authentications; try again later', 3), false)
                  : result === 'takeoverDamped'
                    ? done(
                        authError('Another device with this key holds the connection; try again later', 3),
                        false,
                      )
                    : done(authError('Bad resource id or bridge API key', 4), false),
          (err) => {
            this.ctx.logger.error({ err }, 'bridge authentication failed');
            done(authError('Server unavailable', 5), false);
          },
        );
      },
      authorizePublish: (client, packet, done) => {
        const resourceId = (client as BridgeClient | null)?.resourceId;
        const parsed = parseBridgeTopic(packet.topic);
        if (!client) return done(null);
        if (resourceId && parsed && parsed.resourceId === resourceId && isUpTopicName(parsed.name))
          return done(null);
        this.ctx.logger.warn(
          { resourceId, topic: packet.topic },
          'refused a bridge publish outside its topics',
        );
        done(new Error('Not authorised to publish on this topic'));
      },
      authorizeSubscribe: (client, sub, done) => {
        const resourceId = (client as BridgeClient).resourceId;
        const allowed =
          resourceId !== undefined &&
          downTopicNames.some((name: DownTopicName) => sub.topic === bridgeTopic(resourceId, name));
        if (!allowed) this.ctx.logger.warn({ resourceId, topic: sub.topic }, 'refused a bridge subscription');
        done(null, allowed ? sub : null);
      },
    });
    this.aedes = aedes;
    this.handlers = createHandlers(this.ctx, this);
    // The broker reports storage failures (Redis away, in a cluster) here; unheard they would end the process.
    (aedes as unknown as NodeJS.EventEmitter).on('error', (err: Error) =>
      this.ctx.logger.error({ err }, 'broker storage failed'),
    );

    const heard = (client: BridgeClient | null) => {
      if (client) client.heardAt = this.ctx.clock.now().getTime();
    };
    aedes.on('ping', (_packet, client: BridgeClient) => heard(client));
    aedes.on('ack', (_packet, client: BridgeClient) => heard(client));
    aedes.on('subscribe', (subscriptions, client: BridgeClient) => {
      heard(client);
      const resourceId = client?.resourceId;
      if (!resourceId || !subscriptions.some((s) => s.topic === bridgeTopic(resourceId, 'commands'))) return;
      client.hearsCommands = true;
      for (const go of client.awaitingSubscription?.splice(0) ?? []) go();
    });
    aedes.on('clientReady', (client: BridgeClient) => {
      const resourceId = client.resourceId;
      if (!resourceId) return;
      heard(client);
      // In the map before the second key check: a revocation committed after that check's read
      // finds the client here and closes it; one committed before it fails the check.
      const previous = this.clients.get(resourceId);
      this.clients.set(resourceId, client);
      if (previous && previous !== client) previous.close();
      client.verified = this.stillValid(client).then(
        (valid) => {
          if (this.stopping) return false;
          if (!valid) {
            this.ctx.logger.warn({ resourceId }, 'bridge key revoked while connecting: disconnected');
            this.dropClient(client);
            return false;
          }
          this.handlers?.markOnline(
            resourceId,
            cluster ? () => cluster.claim(resourceId, client.clockOffsetMs ?? 0) : undefined,
          );
          if (cluster) this.checkKeepalive(cluster, resourceId, client.keepaliveSeconds ?? 0);
          this.publishConfig(resourceId).catch((err) =>
            this.ctx.logger.error({ err, resourceId }, 'config publish failed'),
          );
          return true;
        },
        (err) => {
          this.ctx.logger.error({ err, resourceId }, 'bridge key check failed: disconnected');
          this.dropClient(client);
          return false;
        },
      );
    });
    aedes.on('clientDisconnect', (client: BridgeClient) => {
      const resourceId = client.resourceId;
      if (!resourceId || this.clients.get(resourceId) !== client) return;
      this.clients.delete(resourceId);
      this.handlers?.markOffline(resourceId, this.releaser(resourceId));
    });
    if (cluster) this.joinCluster(cluster);
    aedes.on('publish', (packet, client: BridgeClient | null) => {
      if (!client?.resourceId) return;
      heard(client);
      const parsed = parseBridgeTopic(packet.topic);
      if (!parsed || parsed.resourceId !== client.resourceId || !isUpTopicName(parsed.name)) return;
      if (packet.payload.length === 0) return; // a cleared retained message
      const name = parsed.name;
      const receivedAt = Date.now();
      const payload = packet.payload as Buffer;
      const verified = client.verified ?? Promise.resolve(false);
      // Nothing a client sends counts before its key has been checked again at ready.
      void verified.then((ok) => {
        if (ok && !client.closed) this.dispatch(client, name, payload, receivedAt);
      });
    });
  }

  /** Listens for MQTT over TCP; resolves the bound port (0 picks a free one). */
  async listenTcp(host: string, port: number): Promise<number> {
    if (!this.aedes) throw new Error('broker not started');
    const aedes = this.aedes;
    // Small MQTT packets must not wait for Nagle's algorithm: a switch-on is a round trip of
    // two of them, and delayed ACKs would add ~40 ms to each.
    const server = createServer((socket) => {
      socket.setNoDelay(true);
      this.addresses.set(socket, plainAddress(socket.remoteAddress ?? ''));
      aedes.handle(socket);
    });
    this.tcp = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    return typeof address === 'object' && address ? address.port : port;
  }

  /** Serves MQTT over WebSocket at `path` on the HTTP server. */
  attachWebSocket(server: HttpServer, path = '/mqtt'): void {
    if (!this.aedes) throw new Error('broker not started');
    const aedes = this.aedes;
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if ((request.url ?? '').split('?')[0] !== path) {
        socket.destroy();
        return;
      }
      // The WebSocket library is loaded by the first bridge that comes this way (most use TCP).
      const ws = webSocketLibrary();
      this.wss ??= new ws.WebSocketServer({ noServer: true });
      this.wss.handleUpgrade(request, socket, head, (client) => {
        const stream = ws.createWebSocketStream(client);
        this.addresses.set(stream, webSocketClientAddress(request, this.trusted));
        aedes.handle(stream, request);
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    for (const { resolve } of this.pending.values()) resolve(null);
    this.pending.clear();
    // The map stays until the disconnect events have run (they mark each bridge offline).
    const connected = [...this.clients.keys()];
    for (const client of this.clients.values()) client.close();
    if (this.wss) {
      for (const ws of this.wss.clients) ws.terminate();
      await new Promise<void>((resolve) => this.wss?.close(() => resolve()));
    }
    if (this.tcp) await new Promise<void>((resolve) => this.tcp?.close(() => resolve()));
    if (this.aedes) await new Promise<void>((resolve) => this.aedes?.close(() => resolve()));
    await this.handlers?.settle();
    this.clients.clear();
    // Written after the connections are closed: nothing can mark them online again. (In a
    // cluster each disconnect released its bridge, unless another hub holds it by now.)
    if (!this.cluster) await markBridgesOffline(this.ctx, connected);
  }

  isOnline(resourceId: number): boolean {
    return this.clients.has(resourceId) || (this.cluster?.holder(resourceId) ?? null) !== null;
  }

  /** How many bridges are connected now (the bridges_online metric). */
  onlineCount(): number {
    return this.clients.size;
  }

  /** True while the broker runs and accepts bridges (GET /ready). */
  isRunning(): boolean {
    // In a cluster the broker needs Redis: without it no command reaches another hub's bridge.
    return this.aedes !== null && !this.aedes.closed && !this.stopping && (this.cluster?.isReady() ?? true);
  }

  clockOffsetMs(resourceId: number): number {
    const local = this.clients.get(resourceId);
    if (local || !this.cluster) return local?.clockOffsetMs ?? 0;
    return this.cluster.holder(resourceId)?.offsetMs ?? 0;
  }

  async sendCommand(resourceId: number, command: Command, timeoutMs: number): Promise<CommandReply | null> {
    if (!this.isOnline(resourceId)) return null;
    if (this.cluster && !this.clients.has(resourceId))
      return this.sendRemoteCommand(resourceId, command, timeoutMs);
    // A bridge reads online from its CONNECT on, and subscribes just after: a command published
    // in between would reach nobody (its session starts clean), so it waits for the subscription.
    const started = Date.now();
    const client = this.clients.get(resourceId);
    if (client && !client.hearsCommands && !(await this.subscribed(client, timeoutMs))) return null;
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    const reply = this.awaitReply(resourceId, command.id, left);
    await this.publish(resourceId, 'commands', command);
    return reply;
  }

  /** Resolves true once the client has subscribed to its commands, false after `timeoutMs` or if it goes. */
  private subscribed(client: BridgeClient, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const waiting = client.awaitingSubscription ?? [];
        const at = waiting.indexOf(go);
        if (at >= 0) waiting.splice(at, 1);
        resolve(false);
      }, timeoutMs);
      const go = () => {
        clearTimeout(timer);
        resolve(!client.closed);
      };
      client.awaitingSubscription ??= [];
      client.awaitingSubscription.push(go);
    });
  }

  /** The reply to a command, or null when none came within `timeoutMs`; `settled` runs once either way. */
  private awaitReply(
    resourceId: number,
    commandId: string,
    timeoutMs: number,
    settled: () => void = () => {},
  ): Promise<CommandReply | null> {
    return new Promise((resolve) => {
      const done = (value: CommandReply | null) => {
        clearTimeout(timer);
        this.pending.delete(commandId);
        settled();
        resolve(value);
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      this.pending.set(commandId, { resourceId, resolve: done });
    });
  }

  async replyAwaited(commandId: string): Promise<boolean> {
    if (this.pending.has(commandId)) return true;
    if (!this.cluster) return false;
    try {
      return (await this.cluster.replyWaiter(commandId)) !== null;
    } catch {
      // Redis unavailable: no other hub can be told the reply anyway.
      return false;
    }
  }

  /** Called by the replies handler; a reply nobody waits for any more may settle a late switch. */
  async resolveReply(resourceId: number, reply: CommandReply): Promise<void> {
    const waiting = this.pending.get(reply.id);
    if (waiting && waiting.resourceId === resourceId) return waiting.resolve(reply);
    // Cluster: the command may have come from another hub, which waits for this reply.
    const waiter = this.cluster ? await this.cluster.replyWaiter(reply.id) : null;
    if (waiter && this.cluster && waiter !== this.cluster.nodeId) {
      await this.cluster.sendTo(waiter, { k: 'reply', r: resourceId, reply });
      return;
    }
    await settleLateReply(this.ctx, resourceId, reply);
  }

  /**
   * A command for a bridge another hub holds: published through the shared broker (that hub
   * delivers it), and the reply comes back over the cluster bus to this hub, which is named as
   * the waiter in Redis. Anything lost on the way ends as no reply at the deadline (504), never
   * as a switch that did not happen; the durable pending switch-on settles it later.
   */
  private async sendRemoteCommand(
    resourceId: number,
    command: Command,
    timeoutMs: number,
  ): Promise<CommandReply | null> {
    const cluster = this.cluster as Cluster;
    const started = this.ctx.clock.now().getTime();
    try {
      await cluster.awaitReply(command.id, timeoutMs);
    } catch (err) {
      this.ctx.logger.error({ err, resourceId }, 'Redis unavailable: command not sent');
      return null;
    }
    const left = Math.max(1, timeoutMs - (this.ctx.clock.now().getTime() - started));
    const reply = this.awaitReply(resourceId, command.id, left, () => void cluster.replySettled(command.id));
    await this.publish(resourceId, 'commands', command).catch((err) => {
      this.ctx.logger.error({ err, resourceId }, 'publishing a command to another hub failed');
      this.pending.get(command.id)?.resolve(null);
    });
    return reply;
  }

  /** Cluster mode: the bus messages this broker answers, and the presence reconciliation. */
  private joinCluster(cluster: Cluster): void {
    cluster.on('reply', (message) => {
      if (message.k !== 'reply') return;
      const reply = message.reply as CommandReply;
      const waiting = this.pending.get(reply?.id);
      if (waiting && waiting.resourceId === message.r) waiting.resolve(reply);
    });
    cluster.on('disconnect', (message) => {
      if (message.k === 'disconnect') this.disconnectHere(message.r);
    });
    cluster.onOrphan = async (resourceId) => {
      if (!this.clients.has(resourceId)) await markBridgesOffline(this.ctx, [resourceId]);
    };
    this.reconcileTimer = setInterval(() => {
      this.reconcilePresence(cluster).catch((err) =>
        this.ctx.logger.debug({ err }, 'presence reconciliation failed'),
      );
    }, 2_000);
    this.reconcileTimer.unref();
  }

  /**
   * The bridges' `offline` flags follow Redis: a flag left online for a bridge no hub holds (a
   * takeover raced its release) is cleared, and this hub's own bridges read online.
   */
  private async reconcilePresence(cluster: Cluster): Promise<void> {
    if (this.stopping) return;
    const online = await bridgesFlaggedOnline(this.ctx);
    const held = await cluster.holders();
    await markBridgesOffline(
      this.ctx,
      online.filter((r) => !held.has(r) && !this.clients.has(r)),
    );
    // This hub's own bridges: flagged online and held in Redis (again, after Redis lost its data).
    const onlineSet = new Set(online);
    for (const [resourceId, client] of this.clients) {
      if ((onlineSet.has(resourceId) && held.has(resourceId)) || !(await client.verified)) continue;
      if (this.clients.get(resourceId) === client)
        this.handlers?.markOnline(resourceId, () => cluster.claim(resourceId, client.clockOffsetMs ?? 0));
    }
  }

  /**
   * A bridge whose keepalive is shorter than the cluster's offline bound covers is accepted (a
   * door that works beats a door refused over timing), with one warning per bridge and process
   * naming the bound that applies to it (docs/SCALING.md, "The offline bound").
   */
  private checkKeepalive(cluster: Cluster, resourceId: number, keepaliveSeconds: number): void {
    const min = minKeepaliveSeconds(cluster.timing);
    if (keepaliveSeconds <= 0 || keepaliveSeconds >= min || this.warnedKeepalive.has(resourceId)) return;
    this.warnedKeepalive.add(resourceId);
    this.ctx.logger.warn(
      {
        resourceId,
        keepaliveSeconds,
        offlineBoundSeconds: offlineBoundMs(cluster.timing) / 1_000,
        minKeepaliveSeconds: min,
      },
      `bridge ${resourceId} connects with a ${keepaliveSeconds} s keepalive: if its hub dies, the other hubs mark it offline within ${offlineBoundMs(cluster.timing) / 1_000} s, more than 1.5 keepalives (set its keepaliveSeconds to ${min} or more, or shorten HUB_NODE_TTL_MS and HUB_NODE_SWEEP_MS)`,
    );
  }

  private releaser(resourceId: number): (() => Promise<boolean>) | undefined {
    const cluster = this.cluster;
    return cluster ? () => cluster.release(resourceId) : undefined;
  }

  async publishConfig(resourceId: number, config?: BridgeConfig): Promise<void> {
    const current = config ?? (await bridgeConfigFor(this.ctx, resourceId));
    if (current) await this.publish(resourceId, 'config', current);
  }

  disconnect(resourceId: number): void {
    // The key's connections on other hubs are cut as well.
    this.cluster?.send({ k: 'disconnect', r: resourceId });
    this.disconnectHere(resourceId);
  }

  private disconnectHere(resourceId: number): void {
    this.takeovers.forget(resourceId);
    const client = this.clients.get(resourceId);
    if (client) this.dropClient(client);
    // Any other connection of the key (one still connecting is checked again at ready).
    const live = (this.aedes as unknown as { clients?: Record<string, BridgeClient> } | null)?.clients ?? {};
    for (const other of Object.values(live)) {
      if (other.resourceId === resourceId) other.close();
    }
  }

  private dropClient(client: BridgeClient): void {
    const resourceId = client.resourceId;
    if (resourceId && this.clients.get(resourceId) === client) {
      this.clients.delete(resourceId);
      this.handlers?.markOffline(resourceId, this.releaser(resourceId));
    }
    client.close();
  }

  /** Is the key the client authenticated with still its bridge's key? */
  private async stillValid(client: BridgeClient): Promise<boolean> {
    if (!client.resourceId || !client.keyHash) return false;
    return (await bridgeKeyHash(this.ctx, client.resourceId)) === client.keyHash;
  }

  async publishUpdate(resourceId: number, update: BridgeMessage<'update'>): Promise<void> {
    await this.publish(resourceId, 'update', update);
  }

  async forget(resourceId: number): Promise<void> {
    this.disconnect(resourceId);
    // Empty retained payloads delete what a later subscriber would otherwise still get.
    for (const name of ['config', 'status', 'state', 'inputs'] as const) {
      await this.publishRaw(bridgeTopic(resourceId, name), Buffer.alloc(0), true);
    }
  }

  async publish<N extends DownTopicName>(
    resourceId: number,
    name: N,
    message: BridgeMessage<N>,
  ): Promise<void> {
    const payload = Buffer.from(encodeBridgeMessage(name, message));
    await this.publishRaw(bridgeTopic(resourceId, name), payload, topicPublishOptions[name].retain);
  }

  private publishRaw(topic: string, payload: Buffer, retain: boolean): Promise<void> {
    const aedes = this.aedes;
    if (!aedes || aedes.closed) return Promise.resolve();
    return new Promise((resolve, reject) =>
      aedes.publish({ cmd: 'publish', topic, payload, qos: 1, retain, dup: false } as any, (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }

  private async authenticate(
    client: BridgeClient,
    username: string | undefined,
    password: Buffer | undefined,
  ): Promise<'ok' | 'badKey' | 'wrongClientId' | 'throttled' | 'takeoverDamped'> {
    const address = this.addresses.get(client.conn) ?? 'unknown';
    client.address = address;
    const claimed = username && /^[1-9][0-9]{0,15}$/.test(username) ? Number(username) : null;
    // Refused before the key is looked at, so a guess made now teaches nothing.
    const lockout = await this.throttle.check(address, claimed);
    if (lockout) {
      this.ctx.metrics.bridgeConnectsRefused.inc({ reason: 'throttled' });
      this.ctx.logger.debug(
        { address, resourceId: claimed, ...lockout },
        'refused an MQTT connection: locked out',
      );
      return 'throttled';
    }
    const bridge =
      claimed !== null && password ? await bridgeWithKey(this.ctx, claimed, password.toString('utf8')) : null;
    if (!bridge || claimed === null) {
      this.ctx.metrics.bridgeConnectsRefused.inc({ reason: 'badKey' });
      const begins = await this.throttle.failed(address, claimed);
      if (begins) {
        this.ctx.logger.warn(
          { address, resourceId: claimed, scope: begins.scope, retryAfterSeconds: begins.retryAfterSeconds },
          begins.scope === 'address'
            ? `too many failed MQTT authentications from ${address}: its connections are refused for ${begins.retryAfterSeconds} s`
            : `too many failed MQTT authentications for resource ${claimed}: connections for it from other addresses than its bridge's are refused for ${begins.retryAfterSeconds} s`,
        );
      }
      return 'badKey';
    }
    const resourceId = claimed;
    // MQTT-3.1.3-2: the client id names the session; it is this bridge's, or the connection is refused.
    if (client.id !== bridgeClientId(resourceId)) {
      this.ctx.metrics.bridgeConnectsRefused.inc({ reason: 'wrongClientId' });
      return 'wrongClientId';
    }
    this.throttle.succeeded(address, resourceId);
    const holder = this.liveSession(client);
    if (holder && !(await this.mayTakeOver(resourceId, holder, address))) return 'takeoverDamped';
    client.resourceId = resourceId;
    client.keyHash = bridge.apiKeyHash;
    return 'ok';
  }

  /** Another open connection under the same client id (MQTT-3.1.4-2: a new one takes it over). */
  private liveSession(client: BridgeClient): BridgeClient | null {
    const live = (this.aedes as unknown as { clients?: Record<string, BridgeClient> } | null)?.clients ?? {};
    const holder = live[client.id];
    return holder && holder !== client && !holder.closed ? holder : null;
  }

  /**
   * A bridge reconnecting over its own half-open connection takes it over at once; two devices
   * with one key that keep taking it from each other are logged, shown and damped (takeover-guard.ts).
   */
  private async mayTakeOver(resourceId: number, holder: BridgeClient, address: string): Promise<boolean> {
    const decision = this.takeovers.decide(resourceId, this.isAlive(holder));
    if (!decision.allow) {
      this.ctx.metrics.bridgeConnectsRefused.inc({ reason: 'takeoverDamped' });
      this.ctx.logger.debug(
        { resourceId, address, holderAddress: holder.address, retryAfterSeconds: decision.retryAfterSeconds },
        'refused a takeover: another device with this key holds the connection',
      );
      return false;
    }
    this.ctx.metrics.bridgeTakeovers.inc({ kind: decision.duplicate ? 'duplicate' : 'reconnect' });
    if (!decision.duplicate) return true;
    const addresses: [string, string] = [address, holder.address ?? 'unknown'];
    this.ctx.logger.warn(
      {
        resourceId,
        address,
        holderAddress: holder.address,
        takeovers: decision.takeovers,
        backoffSeconds: decision.backoffMs / 1000,
      },
      `two devices use the bridge key of resource ${resourceId} (${addresses.join(' and ')}): they took the connection from each other ${decision.takeovers} times within a minute; further takeovers wait ${decision.backoffMs / 1000} s. Pair the real device again to cut the other off`,
    );
    await recordDuplicateDevice(this.ctx, resourceId, {
      addresses,
      takeovers: decision.takeovers,
      firstOfEpisode: decision.firstOfEpisode,
    }).catch((err) =>
      this.ctx.logger.error({ err, resourceId }, 'recording a duplicate bridge device failed'),
    );
    return true;
  }

  /** Heard from within its keepalive (and a second of grace): a connection that is not dead. */
  private isAlive(client: BridgeClient): boolean {
    const keepalive = client.keepaliveSeconds ?? 0;
    if (keepalive === 0 || client.heardAt === undefined) return true;
    return this.ctx.clock.now().getTime() - client.heardAt <= keepalive * 1000 + 1000;
  }

  private dispatch(client: BridgeClient, name: UpTopicName, payload: Buffer, receivedAt: number): void {
    const resourceId = client.resourceId as number;
    const parsed = parseBridgeMessage(name, payload);
    if (!parsed.ok) {
      this.ctx.logger.warn(
        { resourceId, topic: name, error: parsed.error },
        'dropped a malformed bridge message',
      );
      return;
    }
    const message = parsed.message;
    if (name === 'status') {
      const status = message as BridgeMessage<'status'>;
      if (status.online && status.clock) {
        client.clockOffsetMs = Date.parse(status.clock) - receivedAt;
        const offset = client.clockOffsetMs;
        if (this.cluster && this.clients.get(resourceId) === client && !client.closed)
          this.cluster.claim(resourceId, offset).catch(() => {});
      }
    }
    this.handlers?.handle(resourceId, name, message);
    if (name === 'state' && !client.reconciled) {
      // The first state after a connect is what the bridge runs now: settle what the hub holds.
      client.reconciled = true;
      this.handlers?.reconcile(resourceId, () =>
        reconcileBridge(this.ctx, resourceId, message as BridgeMessage<'state'>),
      );
    }
  }
}
