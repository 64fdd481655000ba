import {
  type BridgeMessage,
  bridgeClientId,
  bridgeTopic,
  type DownTopicName,
  downTopicNames,
  encodeBridgeMessage,
  type Logger,
  parseBridgeMessage,
  parseBridgeTopic,
  type InputsMessage,
  type RelayStateMessage,
  type StatusMessage,
  topicPublishOptions,
  type UpTopicName,
} from '@makerspace/shared/agent';
import mqtt, { type MqttClient } from 'mqtt';
import { Backoff } from './backoff.js';

export interface HubLinkOptions {
  url: string;
  /**
   * Several hubs (cluster mode): each connection attempt goes to the next one in turn, so a hub
   * that fails is left for the next after the usual backoff; the log queue stays as it is.
   */
  hubs?: string[];
  resourceId: number;
  apiKey: string;
  keepaliveSeconds: number;
  agentVersion: string;
  hardware: string;
  logger: Logger;
  now?: () => Date;
  backoff?: Backoff;
  /** How long after connecting the hub's retained bridge config must arrive (5 s). */
  hubAnswerTimeoutMs?: number;
}

/** Each step of stopping (goodbye, disconnect) waits at most this long for the broker. */
const STOP_STEP_MS = 500;

function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** A hub URL as mqtt.js's `servers` entry (the scheme's default port when none is named). */
function serverOf(url: string): { host: string; port: number; protocol: 'mqtt' | 'mqtts' | 'ws' | 'wss' } {
  const u = new URL(url);
  const protocol = u.protocol.slice(0, -1) as 'mqtt' | 'mqtts' | 'ws' | 'wss';
  const defaults = { mqtt: 1883, mqtts: 8883, ws: 80, wss: 443 };
  return { host: u.hostname, port: u.port ? Number(u.port) : defaults[protocol], protocol };
}

type Handler<N extends DownTopicName> = (message: BridgeMessage<N>) => void | Promise<void>;

/**
 * The agent's MQTT connection to the hub (design section 7, docs/PROTOCOL.md).
 *
 * mqtt.js reconnects at a fixed period, so its own reconnect is off (reconnectPeriod 0) and this
 * class schedules reconnects with exponential backoff and jitter (0.5 s doubling to 30 s). On every
 * connect it subscribes to the down topics, then publishes `status` and the latest `state`
 * (both retained), then tells its listeners, which send what waited for the hub.
 */
export class HubLink {
  private client: MqttClient | null = null;
  private readonly handlers = new Map<DownTopicName, Handler<any>>();
  private readonly connectListeners = new Set<() => void>();
  private readonly disconnectListeners = new Set<() => void>();
  private readonly backoff: Backoff;
  private readonly now: () => Date;
  private readonly startedAt: string;
  private relayState: RelayStateMessage | null = null;
  private inputs: InputsMessage | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private online = false;
  /** Subscribed on this connection: commands can arrive, and their replies may go out. */
  private subscribed = false;
  /** Whether the hub has answered (its bridge config) since the last connect. */
  private hubAnswered = false;
  private hubAnswerTimer: NodeJS.Timeout | null = null;
  private firstAttemptDone!: () => void;
  /** Settles after the first connection attempt, successful or not (systemd READY=1 waits on it). */
  readonly firstAttempt = new Promise<void>((resolve) => {
    this.firstAttemptDone = resolve;
  });

  constructor(private readonly options: HubLinkOptions) {
    this.now = options.now ?? (() => new Date());
    this.backoff = options.backoff ?? new Backoff({ initialMs: 500, maxMs: 30_000 });
    this.startedAt = this.now().toISOString();
  }

  get connected(): boolean {
    return this.online;
  }

  /** Registers the one handler of a down topic (one handler per message kind). */
  handle<N extends DownTopicName>(name: N, handler: Handler<N>): void {
    this.handlers.set(name, handler);
  }

  onConnect(listener: () => void): () => void {
    this.connectListeners.add(listener);
    return () => this.connectListeners.delete(listener);
  }

  onDisconnect(listener: () => void): () => void {
    this.disconnectListeners.add(listener);
    return () => this.disconnectListeners.delete(listener);
  }

  async start(): Promise<void> {
    const { resourceId } = this.options;
    this.stopping = false;
    const will: StatusMessage = { online: false };
    const client = mqtt.connect(this.options.url, {
      protocolVersion: 4,
      clientId: bridgeClientId(resourceId),
      username: String(resourceId),
      password: this.options.apiKey,
      keepalive: this.options.keepaliveSeconds,
      clean: true,
      reconnectPeriod: 0,
      ...(this.options.hubs ? { servers: this.options.hubs.map(serverOf) } : {}),
      connectTimeout: 10_000,
      resubscribe: false,
      // mqtt-packet would otherwise pre-build a Buffer for each of the 65,536 two-byte numbers on
      // the first write: about 6 MiB of heap that an agent sending a few packets a minute
      // never needs (docs/PERFORMANCE.md).
      writeCache: false,
      will: {
        topic: bridgeTopic(resourceId, 'status'),
        payload: Buffer.from(encodeBridgeMessage('status', will)),
        qos: 1,
        retain: true,
      },
    });
    this.client = client;
    client.on('connect', () => {
      // Commands and replies are tiny packets; without TCP_NODELAY, Nagle's algorithm and delayed
      // ACKs hold each one back by tens of milliseconds (a WebSocket stream has no such method).
      (client.stream as { setNoDelay?: (on: boolean) => void } | undefined)?.setNoDelay?.(true);
      void this.onConnected();
    });
    client.on('close', () => this.onClosed());
    client.on('error', (err) => this.describeError(err));
    client.on('message', (topic, payload) => void this.dispatch(topic, payload));
  }

  private awaitHubAnswer(): void {
    const { logger, resourceId, url } = this.options;
    const ms = this.options.hubAnswerTimeoutMs ?? 5_000;
    logger.info({ hub: url }, 'connected to the MQTT broker; waiting for the hub');
    this.hubAnswerTimer = setTimeout(() => {
      this.hubAnswerTimer = null;
      if (!this.online || this.hubAnswered) return;
      logger.warn(
        { hub: url, resourceId },
        `the MQTT broker at ${url} accepted the connection, but no makerspace hub answered (no bridge config within ${Math.round(ms / 1000)} s): check "hub" in the agent config, and that resource ${resourceId} has a bridge`,
      );
    }, ms);
    this.hubAnswerTimer.unref();
  }

  private clearHubAnswerTimer(): void {
    if (this.hubAnswerTimer) clearTimeout(this.hubAnswerTimer);
    this.hubAnswerTimer = null;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.clearHubAnswerTimer();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    if (!client) return;
    // A hub that stopped answering (frozen, or the network gone without a reset) must not hold
    // the stop up: the goodbye and the clean disconnect get a moment each, then the socket goes.
    if (this.online) {
      // A clean disconnect does not fire the Last Will, so say goodbye ourselves.
      await withinMs(this.publishRaw(client, 'status', { online: false }), STOP_STEP_MS).catch(() => {});
    }
    this.online = false;
    this.subscribed = false;
    await withinMs(client.endAsync(false), STOP_STEP_MS).catch(() => client.end(true));
  }

  /** Publishes an up message; rejects when the hub is not connected or the broker refuses it. */
  async publish<N extends UpTopicName>(name: N, message: BridgeMessage<N>): Promise<void> {
    const client = this.client;
    // A command can arrive as soon as the subscription holds, before `status` is acknowledged: its
    // reply goes out then too, or the hub would answer 504 for a switch that happened.
    const open = this.online || (name === 'replies' && this.subscribed);
    if (!client || !open) throw new Error('not connected to the hub');
    await this.publishRaw(client, name, message);
  }

  /** Remembers the relay state and publishes it (retained) now or on the next connect. */
  setRelayState(state: RelayStateMessage): void {
    this.relayState = state;
    if (this.online) {
      this.publish('state', state).catch((err) =>
        this.options.logger.warn({ err: err.message }, 'state not published'),
      );
    }
  }

  /** Remembers the inputs' states and publishes them (retained) now or on the next connect. */
  setInputs(inputs: InputsMessage): void {
    this.inputs = inputs;
    if (this.online) {
      this.publish('inputs', inputs).catch((err) =>
        this.options.logger.warn({ err: err.message }, 'inputs not published'),
      );
    }
  }

  private publishRaw<N extends UpTopicName>(
    client: MqttClient,
    name: N,
    message: BridgeMessage<N>,
  ): Promise<void> {
    const payload = encodeBridgeMessage(name, message);
    const { qos, retain } = topicPublishOptions[name];
    return client
      .publishAsync(bridgeTopic(this.options.resourceId, name), payload, { qos, retain })
      .then(() => {});
  }

  private async onConnected(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const { logger, resourceId } = this.options;
    this.hubAnswered = false;
    try {
      const granted = await client.subscribeAsync(
        downTopicNames.map((name) => bridgeTopic(resourceId, name)),
        { qos: 1 },
      );
      // MQTT-3.9.3: return code 0x80 marks a subscription the broker refused.
      const refused = granted.filter((g) => g.qos === 128).map((g) => g.topic);
      if (refused.length > 0) logger.error({ topics: refused }, 'the hub refused subscriptions');
      this.subscribed = true;
      const status: StatusMessage = {
        online: true,
        agentVersion: this.options.agentVersion,
        hardware: this.options.hardware,
        startedAt: this.startedAt,
        clock: this.now().toISOString(),
      };
      await this.publishRaw(client, 'status', status);
      if (this.relayState) await this.publishRaw(client, 'state', this.relayState);
      if (this.inputs) await this.publishRaw(client, 'inputs', this.inputs);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'hub link: setup after connect failed; reconnecting');
      client.end(true);
      return;
    }
    this.backoff.reset();
    this.online = true;
    // Any MQTT broker accepts a connection; a hub also answers with the bridge's retained config
    // (which may have arrived already, right after the subscription).
    if (this.hubAnswered) logger.info({ hub: this.options.url }, 'connected to the hub');
    else this.awaitHubAnswer();
    this.firstAttemptDone();
    for (const listener of this.connectListeners) listener();
  }

  private onClosed(): void {
    const wasOnline = this.online;
    this.online = false;
    this.subscribed = false;
    this.clearHubAnswerTimer();
    this.firstAttemptDone();
    if (wasOnline) {
      this.options.logger.warn('disconnected from the hub');
      for (const listener of this.disconnectListeners) listener();
    }
    if (this.stopping || this.reconnectTimer || !this.client) return;
    const delay = this.backoff.next();
    this.options.logger.debug({ delayMs: delay }, 'hub link: reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopping) this.client?.reconnect();
    }, delay);
  }

  private describeError(err: Error & { code?: string | number }): void {
    // CONNACK return codes (MQTT-3.2.2-3): 4 bad user name or password, 5 not authorized.
    if (err.code === 4 || err.code === 5) {
      this.options.logger.error(
        { code: err.code },
        'the hub refused the bridge API key (check apiKeyFile and resourceId); retrying',
      );
    } else {
      this.options.logger.warn({ err: err.message, code: err.code }, 'hub link error');
    }
  }

  private async dispatch(topic: string, payload: Buffer): Promise<void> {
    const { logger, resourceId } = this.options;
    const parsed = parseBridgeTopic(topic);
    if (
      !parsed ||
      parsed.resourceId !== resourceId ||
      !(downTopicNames as readonly string[]).includes(parsed.name)
    ) {
      logger.warn({ topic }, 'message on an unexpected topic dropped');
      return;
    }
    const name = parsed.name as DownTopicName;
    // A retained message is deleted by an empty payload; nothing to act on.
    if (payload.length === 0) return;
    const result = parseBridgeMessage(name, payload);
    if (!result.ok) {
      logger.warn({ topic, error: result.error }, 'malformed message dropped');
      return;
    }
    if (name === 'config' && !this.hubAnswered) {
      this.hubAnswered = true;
      // Before the connect completes, onConnected says it; after, here.
      if (this.hubAnswerTimer) logger.info({ hub: this.options.url }, 'connected to the hub');
      this.clearHubAnswerTimer();
    }
    const handler = this.handlers.get(name);
    if (!handler) {
      logger.debug({ topic }, 'no handler for message');
      return;
    }
    try {
      await handler(result.message);
    } catch (err) {
      logger.error({ topic, err: (err as Error).message }, 'handling a hub message failed');
    }
  }
}
