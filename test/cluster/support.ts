import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { type AgentProcess, type HubProcess, startAgentProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { stopAll, tempDir } from '../support/processes.js';

const pgUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

/**
 * Cluster tests need PostgreSQL and Redis (redis-server on this machine: each test file starts
 * its own on a free port, so their broker traffic never meets another test's). Without
 * TEST_DATABASE_URL and TEST_REDIS_URL the suite is skipped with one line saying why.
 */
export function describeCluster(title: string, suite: () => void): void {
  if (pgUrl && redisUrl) describe(title, suite);
  else {
    const missing = [!pgUrl && 'TEST_DATABASE_URL', !redisUrl && 'TEST_REDIS_URL']
      .filter(Boolean)
      .join(' and ');
    console.warn(`SKIPPED cluster tests "${title}": ${missing} not set (.ci/run sets both)`);
    describe.skip(`${title} skipped: ${missing} not set`, suite);
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop()). */
  restart(): Promise<void>;
}

/** A redis-server of this test's own, in memory only, on a free loopback port. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const launch = async () => {
    const c = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = c;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      c.stdout?.on('data', (d) => {
        out += d;
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      c.on('exit', () => reject(new Error(`redis-server exited: ${out}`)));
    });
  };
  await launch();
  const stop = async () => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((resolve) => c.on('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  };
  return { url: `redis://127.0.0.1:${port}`, port, stop, restart: launch };
}

/** A door with a bridge, made through hub 0, and its agent (replaced when a test moves it). */
export interface ClusterDoor {
  id: number;
  code: string;
  apiKey: string;
  agent: AgentProcess;
}

/** A door for startCluster: its agent lists these hubs (by number), in this order. */
export interface DoorSpec {
  hubs: number[];
  name?: string;
  /** The agent's MQTT keepalive (s); the test default (2 s) otherwise. */
  keepaliveSeconds?: number;
}

export interface TestCluster {
  redis: RedisServer;
  hubs: HubProcess[];
  /** The doors of `options.doors`, in that order. */
  doors: ClusterDoor[];
  schema: string;
  token: string;
  /** Starts (or restarts) hub number `i` with its node id `hub-{i}`. */
  startHub(i: number, ports?: { httpPort?: number; mqttPort?: number }): Promise<HubProcess>;
  dispose(): Promise<void>;
}

/** Makes a door resource with a bridge through `hub`; returns its id, switch-on code and bridge key. */
export async function makeDoor(hub: HubProcess, name: string): Promise<Omit<ClusterDoor, 'agent'>> {
  const me = (await hub.api('GET', '/user/me')).body;
  const r = (
    await hub.api('POST', '/resources', { space: me.space, name, controlType: 'door', pulseSeconds: 1 })
  ).body;
  const bridge = await hub.api('PUT', `/resources/${r.id}/bridge`, {});
  if (bridge.status !== 200)
    throw new Error(`bridge for ${name}: ${bridge.status} ${JSON.stringify(bridge.body)}`);
  const apiKey = (await hub.api('GET', `/resources/${r.id}/bridge/api-key`)).body.apiKey;
  return { id: r.id, code: r.switchOnCode, apiKey };
}

/** True when `hub`'s API shows the door's bridge online. */
export async function bridgeOnline(hub: HubProcess, id: number): Promise<boolean> {
  return (await hub.api('GET', `/resources/${id}/bridge`)).body.offline === false;
}

export interface ClusterOptions {
  /** How many hub processes (default 2). */
  hubs?: number;
  /** Extra environment of every hub. */
  env?: NodeJS.ProcessEnv;
  /** false: the same PostgreSQL, without Redis: one hub as before (the bench's baseline). */
  clusterMode?: boolean;
  /** Doors with running agents; the start waits until every one reads online on every hub. */
  doors?: DoorSpec[];
}

/**
 * Hub processes on one fresh PostgreSQL schema and one Redis, started one after the other, and
 * the doors of `options.doors` with their agents connected.
 */
export async function startCluster(
  options: ClusterOptions = {},
  /** The arrays to fill (useCluster hands the suite's own). */
  into: Pick<TestCluster, 'hubs' | 'doors'> = { hubs: [], doors: [] },
): Promise<TestCluster> {
  const { hubs: count = 2, env = {} } = options;
  const clusterMode = options.clusterMode ?? true;
  const redis = await startRedis();
  const schema = `c_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const shared = tempDir('cluster-');
  const secretFile = join(shared, 'secret.key');
  writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
  const url = new URL(pgUrl as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const hubs = into.hubs;
  let token: string | undefined;
  const cluster: TestCluster = {
    redis,
    hubs,
    doors: into.doors,
    schema,
    token: '',
    async startHub(i, ports = {}) {
      const hub = await startHubProcess({
        token,
        httpPort: ports.httpPort,
        mqttPort: ports.mqttPort,
        env: {
          DATABASE_URL: url.toString(),
          ...(clusterMode ? { HUB_REDIS_URL: redis.url, HUB_NODE_ID: `hub-${i}` } : {}),
          HUB_SECRET_FILE: secretFile,
          HUB_WEBHOOK_ALLOW_INSECURE: '1',
          ...env,
        },
      });
      token ??= hub.token;
      cluster.token = token;
      hubs[i] = hub;
      return hub;
    },
    async dispose() {
      await redis.stop();
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
  for (let i = 0; i < count; i++) await cluster.startHub(i);
  for (const [i, spec] of (options.doors ?? []).entries()) {
    const door = await makeDoor(hubs[0], spec.name ?? `Door ${i}`);
    const urls = spec.hubs.map((h) => `mqtt://127.0.0.1:${hubs[h].mqttPort}`);
    const agent = await startAgentProcess({
      hubUrl: spec.hubs.length === 1 ? urls[0] : urls,
      resourceId: door.id,
      apiKey: door.apiKey,
      controlType: 'door',
      keepaliveSeconds: spec.keepaliveSeconds,
    });
    cluster.doors.push({ ...door, agent });
  }
  for (const door of cluster.doors)
    for (const hub of hubs) await eventually(() => bridgeOnline(hub, door.id), 10_000, 'bridge online');
  return cluster;
}

/**
 * The cluster of a suite: started before its tests (`timeoutMs` for the start), stopped after
 * them with every process the suite started. Its `hubs` and `doors` fill in when it has started.
 */
export function useCluster(options: ClusterOptions = {}, timeoutMs = 90_000): TestCluster {
  const cluster = { hubs: [], doors: [] } as unknown as TestCluster;
  beforeAll(async () => {
    Object.assign(cluster, await startCluster(options, cluster));
  }, timeoutMs);
  afterAll(async () => {
    await stopAll();
    await cluster.dispose?.();
  });
  return cluster;
}
