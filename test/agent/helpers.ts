import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Agent, AgentConfig, type AgentConfigInput, Backoff, readApiKey } from '@makerspace/agent';
import { createCardReader, createDisplay, createInputs, createRelay, type Sleep } from '@makerspace/hardware';
import {
  type BridgeMessage,
  type BridgeTopicName,
  bridgeTopic,
  createLogger,
  type Logger,
} from '@makerspace/shared';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';

/** Everything a test opens, closed in reverse order by `closeAll` (call it in afterEach). */
export class Teardown {
  private readonly steps: Array<() => Promise<unknown> | unknown> = [];

  add(step: () => Promise<unknown> | unknown): void {
    this.steps.push(step);
  }

  async closeAll(): Promise<void> {
    const errors: unknown[] = [];
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      try {
        await step();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw errors[0];
  }
}

export async function tempDir(teardown: Teardown, prefix = 'agent-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  teardown.add(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Polls until `check` returns a value other than undefined/false, or fails after the deadline. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(
    `timed out waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`,
  );
}

/** A logger whose JSON lines the test can read. */
export function memoryLogger(name = 'test'): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ name, level: 'debug', destination, pretty: false });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines };
}

export const RESOURCE_ID = 12;
export const API_KEY = 'bridge-key-0123456789abcdef';

/**
 * An aedes broker on 127.0.0.1, port 0, that checks the bridge credentials. `down()` closes the
 * listener and drops every connection; `up()` listens again on the same port (retained messages
 * survive, as in a hub restart with persistence).
 */
export class TestBroker {
  aedes!: Aedes;
  port = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Credentials accepted: username -> password. The hub's own client uses "hub". */
  readonly accounts = new Map<string, string>([
    [String(RESOURCE_ID), API_KEY],
    ['hub', 'hub-secret'],
  ]);

  async start(teardown: Teardown): Promise<this> {
    this.aedes = await Aedes.createBroker({
      authenticate: (_client, username, password, done) => {
        const ok = username !== undefined && this.accounts.get(username) === password?.toString();
        if (ok) done(null, true);
        else done(Object.assign(new Error('bad credentials'), { returnCode: 4 as const }), false);
      },
    });
    teardown.add(() => new Promise<void>((resolve) => this.aedes.close(() => resolve())));
    await this.up();
    teardown.add(() => this.down());
    return this;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      this.aedes.handle(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address && typeof address === 'object') this.port = address.port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The test's stand-in for the hub: an MQTT client that records what the bridge publishes. */
export class FakeHub {
  client!: MqttClient;
  readonly received: Array<{ name: string; message: any; retain: boolean }> = [];
  /** Answers `access` requests when set (null: stay silent, like a hub that does not answer). */
  accessResponder: ((request: any) => Omit<BridgeMessage<'access/reply'>, 'id'> | null) | null = null;

  constructor(private readonly broker: TestBroker) {}

  async start(teardown: Teardown): Promise<this> {
    this.client = await mqtt.connectAsync(this.broker.url, {
      clientId: 'test-hub',
      username: 'hub',
      password: 'hub-secret',
      reconnectPeriod: 100,
    });
    teardown.add(() => this.client.endAsync(true));
    this.client.on('message', (topic, payload, packet) => {
      const name = topic.slice(`makerspace/v1/bridges/${RESOURCE_ID}/`.length);
      let message: any = null;
      try {
        message = payload.length ? JSON.parse(payload.toString()) : null;
      } catch {
        message = payload.toString();
      }
      this.received.push({ name, message, retain: packet.retain });
      if (name === 'access' && this.accessResponder) {
        const reply = this.accessResponder(message);
        if (reply) void this.publish('access/reply', { ...reply, id: message.id });
      }
    });
    await this.client.subscribeAsync(`makerspace/v1/bridges/${RESOURCE_ID}/#`, { qos: 1 });
    return this;
  }

  messages(name: string): any[] {
    return this.received.filter((r) => r.name === name).map((r) => r.message);
  }

  async publish<N extends BridgeTopicName>(
    name: N,
    message: BridgeMessage<N> | string,
    retain = false,
  ): Promise<void> {
    const payload = typeof message === 'string' ? message : JSON.stringify(message);
    await this.client.publishAsync(bridgeTopic(RESOURCE_ID, name), payload, { qos: 1, retain });
  }

  /** Waits for a message on `name` matching `match` and returns it. */
  waitForMessage(
    name: string,
    match: (message: any) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<any> {
    return waitFor(() => this.messages(name).find(match), `a "${name}" message`, timeoutMs);
  }

  /** Acknowledges logs, like the hub after storing them. */
  async ack(ids: string[]): Promise<void> {
    await this.publish('logs/ack', { ids });
  }
}

export async function writeApiKey(dir: string, mode = 0o600, key = API_KEY): Promise<string> {
  const file = join(dir, 'api-key');
  await writeFile(file, `${key}\n`, { mode });
  return file;
}

export interface AgentHarness {
  agent: Agent;
  config: AgentConfig;
  dir: string;
  stateFile: string;
  logs: () => Array<Record<string, unknown>>;
  /** The simulated relay file, as the door would show it. */
  relayFile: () => Promise<{ relay: string; since: string } | null>;
  /** Stops the agent (idempotent; also registered for teardown). */
  stop: () => Promise<void>;
}

/** Starts an Agent in-process with a simulated relay and card reader against the test broker. */
export async function startAgent(
  teardown: Teardown,
  broker: TestBroker,
  overrides: Partial<AgentConfigInput> = {},
  dir?: string,
  extra: { feedbackSleep?: Sleep; displayHoldMs?: number } = {},
): Promise<AgentHarness> {
  dir ??= await tempDir(teardown);
  const stateFile = join(dir, 'relay.json');
  const apiKeyFile = await writeApiKey(dir);
  const config = AgentConfig.parse({
    hub: broker.url,
    resourceId: RESOURCE_ID,
    apiKeyFile,
    controlType: 'door',
    pulseSeconds: 0.3,
    dataDir: join(dir, 'data'),
    accessTimeoutSeconds: 1,
    logAckTimeoutSeconds: 0.5,
    hardware: { kind: 'simulated', stateFile },
    cardReader: { kind: 'simulated' },
    ...overrides,
  } satisfies AgentConfigInput);
  const { logger, lines } = memoryLogger('agent');
  const relay = createRelay(config.hardware);
  const agent = new Agent({
    config,
    apiKey: readApiKey(apiKeyFile),
    logger,
    relay,
    inputs: createInputs({
      inputs: config.inputs,
      relay,
      inputsFile: config.hardware.kind === 'simulated' ? config.hardware.inputsFile : undefined,
      source: 'test config',
    }),
    cardReader: config.cardReader ? createCardReader(config.cardReader) : null,
    feedback: config.feedback ? createRelay(config.feedback) : null,
    feedbackSleep: extra.feedbackSleep,
    display: config.display ? createDisplay(config.display) : null,
    displayHoldMs: extra.displayHoldMs,
    backoff: new Backoff({ initialMs: 50, maxMs: 200 }),
    env: {},
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await agent.stop();
  };
  teardown.add(stop);
  await agent.start();
  const relayFile = async () => {
    try {
      return JSON.parse(await readFile(stateFile, 'utf8')) as { relay: string; since: string };
    } catch {
      return null;
    }
  };
  return { agent, config, dir, stateFile, logs: lines, relayFile, stop };
}
