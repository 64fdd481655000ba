import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import { tempDir, unitNodeFlags } from '../support/processes.js';

const require = createRequire(import.meta.url);
export const autocannonBin = join(require.resolve('autocannon/package.json'), '..', 'autocannon.js');

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** Runs `node args...` and answers the JSON of the last line it prints on stdout. */
function lastJsonLine<T>(args: string[], name: string, stderr: 'inherit' | 'ignore' = 'inherit'): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', stderr] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1) as string))
        : reject(new Error(`${name} exited ${code}`)),
    );
  });
}

/**
 * Runs autocannon in its own process (so the load generator does not share the hub's event
 * loop) against a URL, as fast as it can: a throughput figure. For latency at a given rate use
 * openLoop (autocannon's rate limiter sends each second's quota in a burst).
 */
export async function load(options: {
  url: string;
  token: string;
  seconds: number;
  connections: number;
}): Promise<LoadResult> {
  const args = [
    autocannonBin,
    '--json',
    '-c',
    String(options.connections),
    '-d',
    String(options.seconds),
    '-H',
    `authorization=Bearer ${options.token}`,
    options.url,
  ];
  // autocannon draws its progress on stderr.
  const r = await lastJsonLine<any>(args, 'autocannon', 'ignore');
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

export interface OpenLoopResult {
  offered: number;
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  unanswered: number;
  rps: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  lagP99: number | null;
  statusCodes: Record<string, number>;
  /** Requests sent again, as a browser would: after the server's 408 to a connection it had seen nothing on, or a connection closed as the request went out. */
  retried: { 408: number; closed: number };
}

/**
 * Runs the open-loop generator (open-loop.mjs) in a child process: requests start on a fixed
 * schedule at `rate` per second, cycling through `requests`, whatever the answers do.
 */
export function openLoop(options: {
  url: string;
  requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[];
  seconds: number;
  rate: number;
  connections?: number;
}): Promise<OpenLoopResult> {
  const runner = new URL('./open-loop.mjs', import.meta.url).pathname;
  return lastJsonLine([runner, JSON.stringify(options)], 'open-loop generator');
}

/** The node flags of the hub's systemd unit: benchmark hubs run as the unit runs them. */
export const HUB_NODE_FLAGS = unitNodeFlags('makerspace-hub.service');

/**
 * A hub process for a benchmark, run with its unit's node flags (`nodeArgs` others); `cli` runs
 * another build of it (a baseline to compare with). BENCH_HUB_CLI does the same for every hub of
 * a run.
 */
export async function startBenchHub(
  cli = process.env.BENCH_HUB_CLI,
  env?: NodeJS.ProcessEnv,
  nodeArgs = HUB_NODE_FLAGS,
): Promise<HubProcess> {
  return startHubProcess({ cli, env, nodeArgs });
}

/** HUB_METRICS_TOKEN of bench hubs that are asked for their event-loop delay. */
export const benchMetricsToken = 'bench-metrics-token-0123456789';

/**
 * The hub's event-loop delay since the last call (p99 and max, in ms), from its /metrics (the
 * hub must run with HUB_METRICS_TOKEN=benchMetricsToken). prom-client samples the loop every
 * 10 ms and starts afresh at each scrape, so a call before a run and one after it measure the run.
 */
export async function loopDelay(hub: HubProcess): Promise<{ p99: number; max: number }> {
  const res = await fetch(`http://127.0.0.1:${hub.httpPort}/metrics`, {
    headers: { authorization: `Bearer ${benchMetricsToken}` },
  });
  const text = await res.text();
  const read = (name: string) => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`makerspace_hub_nodejs_eventloop_lag_${name}_seconds `));
    return line ? Number(line.split(' ')[1]) * 1000 : Number.NaN;
  };
  return { p99: read('p99'), max: read('max') };
}

/**
 * CPU time (user + system) a process has used so far, in milliseconds, from /proc (Linux; null
 * elsewhere). Unlike latency, it hardly moves with what the neighbours on the machine do.
 */
export function cpuMilliseconds(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** `median (min-max)` of per-round figures. */
export function spread(values: number[], digits = 2): string {
  return `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}-${fmt(Math.max(...values), digits)})`;
}

export function fmt(n: number, digits = 1): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/**
 * What one durable commit costs on the disk the hubs use (SQLite in WAL mode with
 * synchronous=FULL, one small row per commit): the floor under every switch-on's latency, since a
 * switch-on answers only after its log is on disk. It varies a lot between machines.
 */
export function commitMilliseconds(commits = 500): number {
  const db = new Database(`${tempDir('fsync-')}/probe.sqlite`);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('create table probe (id integer primary key, text text)');
    const insert = db.prepare('insert into probe (text) values (?)');
    const started = performance.now();
    for (let i = 0; i < commits; i++) insert.run('x'.repeat(200));
    return (performance.now() - started) / commits;
  } finally {
    db.close();
  }
}

/**
 * The hub's warnings and errors (pino lines of level 40 and up) written after `from` (a length of
 * its output), at most `max`: printed beside a run that had failures, so the cause shows.
 */
export function hubWarnings(hub: HubProcess, from: number, max = 10): string[] {
  return hub.proc
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => {
      const level = /"level":(\d+)/.exec(line)?.[1];
      return level !== undefined && Number(level) >= 40;
    })
    .slice(0, max);
}
