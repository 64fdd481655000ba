import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { createServer, type Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  type BridgeConfig,
  type BridgeMessage,
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
import type { HubContext } from '../context.js';
import type { OfflineKeyFacts } from '../keys/offline-keys.js';
import { verifyBridgeKey } from '../resources/bridges.js';
import { bridgeConfigFor } from './bridge-config.js';
import { type BridgeMessageHandlers, createHandlers } from './bridge-handlers.js';

type BridgeClient = Client & { resourceId?: number };

/** What the rest of the hub needs from the broker. */
export interface BridgeLink {
  isOnline(resourceId: number): boolean;
  /** Publishes a command and waits for the agent's reply; null when none came in time. */
  sendCommand(resourceId: number, command: Command, timeoutMs: number): Promise<CommandReply | null>;
  /**
   * Re-publishes the resource's retained config (after any change that affects it); `facts`
   * shares the account's reads between the bridges of one refresh.
   */
  publishConfig(resourceId: number, facts?: OfflineKeyFacts): Promise<void>;
  /** Disconnects the resource's agent at once (key rotated or revoked, resource deleted). */
  disconnect(resourceId: number): void;
  /** Clears everything retained for a deleted resource and disconnects its agent. */
  forget(resourceId: number): Promise<void>;
}

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

  constructor(private readonly ctx: HubContext) {}

  async start(): Promise<void> {
    const aedes = await Aedes.createBroker({
      authenticate: (client, username, password, done) => {
        this.authenticate(client as BridgeClient, username, password).then(
          (ok) => (ok ? done(null, true) : done(authError('Bad resource id or bridge API key', 4), false)),
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
      const previous = this.clients.get(resourceId);
      this.clients.set(resourceId, client);
      if (previous && previous !== client) previous.close();
      this.publishConfig(resourceId).catch((err) =>
        this.ctx.logger.error({ err, resourceId }, 'config publish failed'),
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
      this.dispatch(client.resourceId, parsed.name, packet.payload as Buffer);
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
    for (const { resolve } of this.pending.values()) resolve(null);
    this.pending.clear();
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
    if (this.wss) {
      for (const ws of this.wss.clients) ws.terminate();
      await new Promise<void>((resolve) => this.wss?.close(() => resolve()));
    }
    if (this.tcp) await new Promise<void>((resolve) => this.tcp?.close(() => resolve()));
    if (this.aedes) await new Promise<void>((resolve) => this.aedes?.close(() => resolve()));
    await this.handlers?.settle();
  }

  isOnline(resourceId: number): boolean {
    return this.clients.has(resourceId);
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

  /** Called by the replies handler. */
  resolveReply(resourceId: number, reply: CommandReply): void {
    const waiting = this.pending.get(reply.id);
    if (waiting && waiting.resourceId === resourceId) waiting.resolve(reply);
  }

  async publishConfig(resourceId: number, facts?: OfflineKeyFacts): Promise<void> {
    const config: BridgeConfig | null = await bridgeConfigFor(this.ctx, resourceId, facts);
    if (config) await this.publish(resourceId, 'config', config);
  }

  disconnect(resourceId: number): void {
    const client = this.clients.get(resourceId);
    if (client) {
      this.clients.delete(resourceId);
      client.close();
    }
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
  ) {
    if (!username || !/^[1-9][0-9]{0,15}$/.test(username) || !password) return false;
    const resourceId = Number(username);
    const bridge = await verifyBridgeKey(this.ctx.db, resourceId, password.toString('utf8'));
    if (!bridge) return false;
    client.resourceId = resourceId;
    return true;
  }

  private dispatch(resourceId: number, name: UpTopicName, payload: Buffer): void {
    const parsed = parseBridgeMessage(name, payload);
    if (!parsed.ok) {
      this.ctx.logger.warn(
        { resourceId, topic: name, error: parsed.error },
        'dropped a malformed bridge message',
      );
      return;
    }
    this.handlers?.handle(resourceId, name, parsed.message);
  }
}
