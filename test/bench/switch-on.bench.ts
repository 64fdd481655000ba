import { type ChildProcess, spawn } from 'node:child_process';
import type { HubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import {
  commitMilliseconds,
  cpuMilliseconds,
  fmt,
  type OpenLoopResult,
  openLoop,
  spread,
  startBenchHub,
} from './harness.js';

/** BENCH_RATES=200,800 measures only those fixed rates and skips the search for the highest. */
const onlyRates = process.env.BENCH_RATES?.split(',').map(Number);
const rates = (...defaults: number[]) => onlyRates ?? defaults;

const BRIDGES = 100;

interface Farm {
  child: ChildProcess;
  send(line: string): void;
  next(): Promise<string>;
}

export function startFarm(mqttUrl: string, bridges: { resourceId: number; apiKey: string }[]): Promise<Farm> {
  const script = new URL('./agent-farm.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', script, mqttUrl, JSON.stringify(bridges)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk) => {
    buffer += chunk;
    let i = buffer.indexOf('\n');
    while (i >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
      i = buffer.indexOf('\n');
    }
  });
  const farm: Farm = {
    child,
    send: (line) => child.stdin?.write(`${line}\n`),
    next: () => {
      const line = lines.shift();
      return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => waiting.push(resolve));
    },
  };
  return farm.next().then((line) => {
    if (line !== 'ready') throw new Error(`agent farm: ${line}`);
    return farm;
  });
}

/** A hub with `count` door resources, each with a bridge, and a member whose package allows them. */
export async function setUp(hub: HubProcess, count = BRIDGES) {
  const me = (await hub.api('GET', '/user/me')).body;
  const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body;
  await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
  const member = (await hub.api('POST', '/members', { firstName: 'Bench', lastName: 'Member' })).body;
  await hub.api('POST', `/members/${member.id}/packages`, { package: pkg.id });
  const key = (await hub.api('POST', '/api-keys', { member: member.id })).body;
  const token = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token as string;
  const resources: { id: number; code: string; apiKey: string; name: string }[] = [];
  const create = async (i: number) => {
    const name = `Door ${String(i).padStart(4, '0')}`;
    const r = (await hub.api('POST', '/resources', { space: me.space, name, controlType: 'door' })).body;
    await hub.api('PUT', `/resources/${r.id}/bridge`, {});
    const apiKey = (await hub.api('GET', `/resources/${r.id}/bridge/api-key`)).body.apiKey;
    return { id: r.id as number, code: r.switchOnCode as string, apiKey: apiKey as string, name };
  };
  // A few at a time: 1,000 resources one after the other take long on a busy machine.
  for (let i = 0; i < count; i += 8) {
    const batch = Array.from({ length: Math.min(8, count - i) }, (_, j) => create(i + j));
    resources.push(...(await Promise.all(batch)));
  }
  return { token, resources, memberId: member.id as number };
}

/**
 * A bench hub with 100 doors (or `count`) whose bridges the agent farm holds online, and the
 * switch-on requests that cycle through them. `cli`: another build of the hub; `nodeArgs`: other
 * node flags than the hub unit's.
 */
export async function startSwitchOnScene(
  options: { cli?: string; count?: number; env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {},
) {
  const hub = await startBenchHub(options.cli, options.env, options.nodeArgs);
  const { token, resources, memberId } = await setUp(hub, options.count);
  const farm = await startFarm(
    `mqtt://127.0.0.1:${hub.mqttPort}`,
    resources.map((r) => ({ resourceId: r.id, apiKey: r.apiKey })),
  );
  await eventually(
    async () => (await hub.api('GET', `/resources/${resources.at(-1)?.id}/bridge`)).body.offline === false,
    60_000,
    'bridges online',
  );
  const requests = resources.map((r) => ({
    method: 'POST',
    path: `/api/v1/resources/${r.id}/switch-on`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code: r.code }),
  }));
  return { hub, token, resources, memberId, farm, requests };
}

/**
 * The baseline hub's node flags: the unit's, or BENCH_BASELINE_NODE_FLAGS ('' for none) to
 * measure what a flag costs (BENCH_BASELINE_HUB=hub/dist/cli.js then runs this build twice).
 */
function baselineNodeFlags(): string[] | undefined {
  return process.env.BENCH_BASELINE_NODE_FLAGS?.split(' ').filter(Boolean);
}

/**
 * BENCH_BASELINE_HUB=path/to/cli.js: this build against another one (a copy of hub/dist built
 * from an earlier commit, placed beside hub/dist so it finds the same packages). Both hubs run
 * side by side with their own agent farms; rounds alternate between them (A B, B A, ...) so the
 * machine's drift hits both alike. Per round p50 and p99 of each, then their medians.
 */
async function baselineComparison(seconds: number, baselineCli: string, say: (line: string) => void) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
  const scenes = {
    this: await startSwitchOnScene(),
    baseline: await startSwitchOnScene({ cli: baselineCli, nodeArgs: baselineNodeFlags() }),
  };
  const figures = {
    this: { p50: [] as number[], p99: [] as number[], cpu: [] as number[] },
    baseline: { p50: [] as number[], p99: [] as number[], cpu: [] as number[] },
  };
  for (const rate of rates(200)) {
    for (const which of ['this', 'baseline'] as const) {
      const { hub, requests } = scenes[which];
      await openLoop({ url: `http://127.0.0.1:${hub.httpPort}`, requests, seconds: 2, rate }); // warm-up
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['this', 'baseline'] as const) : (['baseline', 'this'] as const);
      for (const which of order) {
        const { hub, requests } = scenes[which];
        const cpuBefore = cpuMilliseconds(hub.proc.child.pid) ?? Number.NaN;
        const r = await openLoop({ url: `http://127.0.0.1:${hub.httpPort}`, requests, seconds, rate });
        const cpu = ((cpuMilliseconds(hub.proc.child.pid) ?? Number.NaN) - cpuBefore) / r.sent;
        figures[which].p50.push(r.p50 ?? Number.NaN);
        figures[which].p99.push(r.p99 ?? Number.NaN);
        figures[which].cpu.push(cpu);
        say(
          `| round ${round + 1}: switch-on at ${rate}/s, ${which === 'this' ? 'this build' : 'baseline build'} | ${fmt(r.rps, 0)} req/s | p50 ${r.p50} ms, p99 ${r.p99} ms, hub CPU ${fmt(cpu, 3)} ms per call | errors ${r.non2xx + r.errors + r.timeouts + r.unanswered} |`,
        );
      }
    }
    for (const which of ['this', 'baseline'] as const) {
      say(
        `| switch-on at ${rate}/s, ${which === 'this' ? 'this build' : 'baseline build'}: median of ${rounds} rounds (min-max) | | p50 ${spread(figures[which].p50)} ms, p99 ${spread(figures[which].p99)} ms, hub CPU ${spread(figures[which].cpu, 3)} ms per call | |`,
      );
    }
  }
  for (const { farm, hub } of Object.values(scenes)) {
    farm.send('quit');
    await new Promise((r) => farm.child.once('exit', r));
    await hub.proc.stop();
  }
}

/** issue 3: switch-on round trip with 100 connected bridges, and acknowledged log ingest. */
export async function switchOnBench(
  seconds: number,
  parts: { switchOn: boolean; ingest: boolean } = { switchOn: true, ingest: true },
): Promise<string[]> {
  const baselineCli = process.env.BENCH_BASELINE_HUB;
  if (baselineCli && parts.switchOn) {
    const lines: string[] = [];
    await baselineComparison(seconds, baselineCli, (line) => {
      lines.push(line);
      process.stderr.write(`${line}\n`);
    });
    return lines;
  }
  const { hub, farm, requests } = await startSwitchOnScene();
  const run = (rate: number, secs = seconds) =>
    openLoop({ url: `http://127.0.0.1:${hub.httpPort}`, requests, seconds: secs, rate });

  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  const failures = (r: OpenLoopResult) => r.non2xx + r.errors + r.timeouts + r.unanswered;
  // Served in full, without a single error, and with p99 under a second (beyond that the hub is
  // queueing, not keeping up).
  const sustained = (r: OpenLoopResult) =>
    failures(r) === 0 && r.rps >= r.offered * 0.97 && (r.p99 ?? Infinity) < 1000;
  if (parts.switchOn) {
    say(
      `| one durable SQLite commit on this disk (WAL, synchronous=FULL) | | ${fmt(commitMilliseconds(), 2)} ms | |`,
    );
    await run(200, 2); // warm-up
    let best = 0;
    for (const rate of rates(200, 1000)) {
      const r = await run(rate);
      say(
        `| switch-on at ${rate}/s (${BRIDGES} bridges) | ${fmt(r.rps, 0)} req/s | p50 ${r.p50} ms, p99 ${r.p99} ms | errors ${failures(r)} |`,
      );
      if (sustained(r)) best = Math.max(best, rate);
    }
    // The highest offered rate that is sustained, rising in steps until one is not.
    for (const rate of onlyRates ? [] : [1250, 1500, 1750, 2000, 2250, 2500, 3000, 4000]) {
      const r = await run(rate);
      const clean = sustained(r);
      say(
        `| switch-on offered ${rate}/s | ${fmt(r.rps, 0)} req/s | p50 ${r.p50} ms, p99 ${r.p99} ms | errors ${failures(r)}${clean ? '' : ' (not sustained)'} |`,
      );
      if (!clean) break;
      best = rate;
    }
    if (!onlyRates) say(`| highest switch-on rate sustained without errors | ${fmt(best, 0)}/s | | |`);
  }
  if (parts.ingest) {
    farm.send(`ingest ${seconds} 50`);
    const ingest = JSON.parse(await farm.next());
    say(
      `| log ingest, acknowledged (${BRIDGES} bridges, batches of 50) | ${fmt(ingest.perSecond, 0)} logs/s | | |`,
    );
  }
  farm.send('quit');
  await new Promise((r) => farm.child.once('exit', r));
  await hub.proc.stop();
  return lines;
}
