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
import { createWebSocketStream, WebSocketServer } from 'ws';
import type { PolicyContext } from '../access/policy.js';
import type { BridgeLink } from '../context.js';
import { findBridge, verifyBridgeKey } from '../resources/bridges.js';
import { reconcileBridge, settleLateReply } from '../resources/switch-sessions.js';
import { bridgeConfigFor } from '../resources/bridge-config.js';
import { type BridgeMessageHandlers, createHandlers } from './bridge-handlers.js';

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
};

/** What the rest of the hub needs from the broker. */

const authError = (message: string, returnCode: 4 | 5) => Object.assign(new Error(message), { returnCode });

/**
 * The embedded MQTT broker (aedes) for bridges, over TCP and over WebSocket at /mqtt. A bridge
 * logs in with its resource id and bridge API key and may publish only its own up-topics and
 * subscribe only to its own down-topics (DESIGN 7).
 */
export class BridgeBroker implements BridgeLink {
  private aedes: Aedes | null = null;
  private tcp: NetServer | null = null;
  private wss: WebSocketServer | null = null;
  private readonly clients = new Map<number, BridgeClient>();
  private readonly pending = new Map<
    string,
    { resourceId: number; resolve: (reply: CommandReply | null) => void }
  >();
  private handlers: BridgeMessageHandlers | null = null;
  /** Set by stop(): a key check finishing after it must not mark the bridge online again. */
  private stopping = false;

  constructor(private readonly ctx: PolicyContext) {}

  async start(): Promise<void> {
    // Presence comes from live connections: after a start (a crash included) none are live yet.
    await this.ctx.db.updateTable('bridges').set({ offline: 1 }).where('offline', '=', 0).execute();
    const aedes = await Aedes.createBroker({
      authenticate: (client, username, password, done) => {
        this.authenticate(client as BridgeClient, username, password).then(
          (result) =>
            result === 'ok'
              ? done(null, true)
              : result === 'wrongClientId'
                ? // A bridge's client id is bound to its key: another id could take over a session.
                  done(authError('The client id must be bridge-{resource id}', 5), false)
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

    aedes.on('clientReady', (client: BridgeClient) => {
      const resourceId = client.resourceId;
      if (!resourceId) return;
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
          this.handlers?.markOnline(resourceId);
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
      this.handlers?.markOffline(resourceId);
    });
    aedes.on('publish', (packet, client: BridgeClient | null) => {
      if (!client?.resourceId) return;
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
    const wss = new WebSocketServer({ noServer: true });
    this.wss = wss;
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if ((request.url ?? '').split('?')[0] !== path) {
        socket.destroy();
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        aedes.handle(createWebSocketStream(ws), request);
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
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
    // Written after the connections are closed: nothing can mark them online again.
    if (connected.length > 0) {
      await this.ctx.db
        .updateTable('bridges')
        .set({ offline: 1, updatedAt: new Date().toISOString() })
        .where('resource', 'in', connected)
        .execute();
    }
  }

  isOnline(resourceId: number): boolean {
    return this.clients.has(resourceId);
  }

  /** How many bridges are connected now (the bridges_online metric). */
  onlineCount(): number {
    return this.clients.size;
  }

  /** True while the broker runs and accepts bridges (GET /ready). */
  isRunning(): boolean {
    return this.aedes !== null && !this.aedes.closed && !this.stopping;
  }

  clockOffsetMs(resourceId: number): number {
    return this.clients.get(resourceId)?.clockOffsetMs ?? 0;
  }

  async sendCommand(resourceId: number, command: Command, timeoutMs: number): Promise<CommandReply | null> {
    if (!this.isOnline(resourceId)) return null;
    const reply = new Promise<CommandReply | null>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(command.id);
        resolve(null);
      }, timeoutMs);
      this.pending.set(command.id, {
        resourceId,
        resolve: (value) => {
          clearTimeout(timer);
          this.pending.delete(command.id);
          resolve(value);
        },
      });
    });
    await this.publish(resourceId, 'commands', command);
    return reply;
  }

  /** Called by the replies handler; a reply nobody waits for any more may settle a late switch. */
  async resolveReply(resourceId: number, reply: CommandReply): Promise<void> {
    const waiting = this.pending.get(reply.id);
    if (waiting && waiting.resourceId === resourceId) waiting.resolve(reply);
    else await settleLateReply(this.ctx, resourceId, reply);
  }

  async publishConfig(resourceId: number, config?: BridgeConfig): Promise<void> {
    const current = config ?? (await bridgeConfigFor(this.ctx, resourceId));
    if (current) await this.publish(resourceId, 'config', current);
  }

  disconnect(resourceId: number): void {
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
      this.handlers?.markOffline(resourceId);
    }
    client.close();
  }

  /** Is the key the client authenticated with still its bridge's key? */
  private async stillValid(client: BridgeClient): Promise<boolean> {
    if (!client.resourceId || !client.keyHash) return false;
    const bridge = await findBridge(this.ctx.db, client.resourceId);
    return bridge !== undefined && bridge.apiKeyHash === client.keyHash;
  }

  async forget(resourceId: number): Promise<void> {
    this.disconnect(resourceId);
    // Empty retained payloads delete what a later subscriber would otherwise still get.
    for (const name of ['config', 'status', 'state'] as const) {
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
  ): Promise<'ok' | 'badKey' | 'wrongClientId'> {
    if (!username || !/^[1-9][0-9]{0,15}$/.test(username) || !password) return 'badKey';
    const resourceId = Number(username);
    const bridge = await verifyBridgeKey(this.ctx.db, resourceId, password.toString('utf8'));
    if (!bridge) return 'badKey';
    // MQTT-3.1.3-2: the client id names the session; it is this bridge's, or the connection is refused.
    if (client.id !== bridgeClientId(resourceId)) return 'wrongClientId';
    client.resourceId = resourceId;
    client.keyHash = bridge.apiKeyHash;
    return 'ok';
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
      if (status.online && status.clock) client.clockOffsetMs = Date.parse(status.clock) - receivedAt;
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
