import type { HubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { startCluster, type TestCluster } from '../cluster/support.js';
import { cpuMilliseconds, fmt, median, type OpenLoopResult, openLoop, spread } from './harness.js';
import { setUp, startFarm } from './switch-on.bench.js';

const BRIDGES = 100;
const rates = process.env.BENCH_RATES?.split(',').map(Number) ?? [200, 400];

const scenarios = [
  { key: 'single', hubs: 1, clusterMode: false, label: 'one hub, single process (PostgreSQL)' },
  { key: 'one', hubs: 1, clusterMode: true, label: 'one hub in cluster mode (PostgreSQL + Redis)' },
  { key: 'two', hubs: 2, clusterMode: true, label: 'two hubs (PostgreSQL + Redis, every call cross-hub)' },
];

type Scene = Awaited<ReturnType<typeof startScene>>;

/** A cluster of `hubs` hubs with 100 door bridges spread over agent farms, one farm per hub. */
async function startScene(scenario: (typeof scenarios)[number]) {
  const { hubs, clusterMode } = scenario;
  const cluster: TestCluster = await startCluster({ hubs, clusterMode });
  const { token, resources } = await setUp(cluster.hubs[0], BRIDGES);
  // Bridge i connects to hub i % hubs; its switch-ons go to hub (i + 1) % hubs.
  const farms = [];
  for (let h = 0; h < hubs; h++) {
    const mine = resources.filter((_, i) => i % hubs === h);
    farms.push(
      await startFarm(
        `mqtt://127.0.0.1:${cluster.hubs[h].mqttPort}`,
        mine.map((r) => ({ resourceId: r.id, apiKey: r.apiKey })),
      ),
    );
  }
  const last = resources.at(-1)?.id;
  await eventually(
    async () => (await cluster.hubs[0].api('GET', `/resources/${last}/bridge`)).body.offline === false,
    60_000,
    'bridges online',
  );
  const requestsFor = (hub: number) =>
    resources
      .filter((_, i) => (i + 1) % hubs === hub)
      .map((r) => ({
        method: 'POST',
        path: `/api/v1/resources/${r.id}/switch-on`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ code: r.code }),
      }));
  const hubCpu = () =>
    cluster.hubs.reduce(
      (sum, hub: HubProcess) => sum + (cpuMilliseconds(hub.proc.child.pid) ?? Number.NaN),
      0,
    );
  /** Switch-ons at `rate` a second, spread evenly over the hubs. */
  const switchOns = async (rate: number, secs: number) => {
    const before = hubCpu();
    const results = await Promise.all(
      cluster.hubs.map((hub: HubProcess, h) =>
        openLoop({
          url: `http://127.0.0.1:${hub.httpPort}`,
          requests: requestsFor(h),
          seconds: secs,
          rate: rate / hubs,
        }),
      ),
    );
    const sent = results.reduce((s, r) => s + r.sent, 0);
    return {
      rps: results.reduce((s, r) => s + r.rps, 0),
      p50: Math.max(...results.map((r) => r.p50 ?? Number.NaN)),
      p99: Math.max(...results.map((r) => r.p99 ?? Number.NaN)),
      cpu: (hubCpu() - before) / sent,
      errors: results.reduce(
        (s, r: OpenLoopResult) => s + r.non2xx + r.errors + r.timeouts + r.unanswered,
        0,
      ),
    };
  };
  /** Acknowledged log ingest: every bridge sends batches of 50 and waits for the ack. */
  const ingest = async (secs: number) => {
    const before = hubCpu();
    for (const farm of farms) farm.send(`ingest ${secs} 50`);
    const done = await Promise.all(farms.map(async (farm) => JSON.parse(await farm.next())));
    const logs = done.reduce((s, r) => s + r.acked, 0);
    return {
      perSecond: done.reduce((s, r) => s + r.perSecond, 0),
      cpuUs: ((hubCpu() - before) * 1000) / logs,
    };
  };
  const stop = async () => {
    for (const farm of farms) {
      farm.send('quit');
      await new Promise((r) => farm.child.once('exit', r));
    }
    for (const hub of cluster.hubs) await hub.proc.stop();
    await cluster.dispose();
  };
  return { ...scenario, switchOns, ingest, stop };
}

/**
 * `npm run bench -- cluster`: switch-on and acknowledged log ingest through one hub on
 * PostgreSQL (single process, no Redis), one hub in cluster mode (PostgreSQL + Redis) and two
 * hubs in cluster mode. All three run side by side, measured in turn, in BENCH_ROUNDS rounds
 * (default 3) whose order rotates, so the machine's drift hits them alike. With two hubs each hub
 * holds half of the bridges and every switch-on goes to the hub that does not hold the bridge
 * (the cross-hub path: command and reply through Redis). Each figure comes with the hubs' CPU
 * time per call or per log (all hubs together), from which the scaling per added core follows.
 * BENCH_CLUSTER=single,one,two picks scenarios. Needs TEST_DATABASE_URL and redis-server.
 */
export async function clusterBench(seconds: number): Promise<string[]> {
  if (!process.env.TEST_DATABASE_URL)
    return ['| cluster bench skipped: TEST_DATABASE_URL is not set | | | |'];
  process.env.TEST_REDIS_URL ??= 'redis://127.0.0.1:6379';
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  const wanted = process.env.BENCH_CLUSTER?.split(',') ?? scenarios.map((s) => s.key);
  const scenes: Scene[] = [];
  try {
    for (const scenario of scenarios.filter((s) => wanted.includes(s.key)))
      scenes.push(await startScene(scenario));
    for (const scene of scenes) await scene.switchOns(rates[0], 2); // warm-up
    type Figures = { rps: number[]; p50: number[]; p99: number[]; cpu: number[] };
    const figures = new Map<string, Figures>();
    const of = (key: string) => {
      if (!figures.has(key)) figures.set(key, { rps: [], p50: [], p99: [], cpu: [] });
      return figures.get(key) as Figures;
    };
    for (let round = 0; round < rounds; round++) {
      const order = scenes.map((_, i) => scenes[(i + round) % scenes.length]);
      for (const scene of order) {
        for (const rate of rates) {
          const r = await scene.switchOns(rate, seconds);
          const f = of(`switch-on at ${rate}/s, ${scene.label}`);
          f.rps.push(r.rps);
          f.p50.push(r.p50);
          f.p99.push(r.p99);
          f.cpu.push(r.cpu);
          say(
            `| round ${round + 1}: switch-on at ${rate}/s, ${scene.label} | ${fmt(r.rps, 0)} req/s | p50 ${r.p50} ms, p99 ${r.p99} ms, hub CPU ${fmt(r.cpu, 2)} ms per call | errors ${r.errors} |`,
          );
        }
        const ingest = await scene.ingest(seconds);
        const f = of(`log ingest, acknowledged (${BRIDGES} bridges, batches of 50), ${scene.label}`);
        f.rps.push(ingest.perSecond);
        f.cpu.push(ingest.cpuUs);
        say(
          `| round ${round + 1}: log ingest, acknowledged, ${scene.label} | ${fmt(ingest.perSecond, 0)} logs/s | hub CPU ${fmt(ingest.cpuUs, 0)} µs per log | |`,
        );
      }
    }
    for (const [label, f] of figures) {
      const ingest = label.startsWith('log ingest');
      say(
        ingest
          ? `| ${label}: median of ${rounds} (min-max) | ${spread(f.rps, 0)} logs/s | hub CPU ${spread(f.cpu, 0)} µs per log | |`
          : `| ${label}: median of ${rounds} (min-max) | ${spread(f.rps, 0)} req/s | p50 ${spread(f.p50)} ms, p99 ${spread(f.p99)} ms, hub CPU ${spread(f.cpu)} ms per call | |`,
      );
    }
    // The target: one hub in cluster mode keeps at least 70 % of the single process's figures.
    const single = scenes.find((s) => s.key === 'single');
    const one = scenes.find((s) => s.key === 'one');
    if (single && one) {
      for (const rate of rates) {
        const a = of(`switch-on at ${rate}/s, ${single.label}`);
        const b = of(`switch-on at ${rate}/s, ${one.label}`);
        say(
          `| one hub in cluster mode against single process, switch-on at ${rate}/s (medians) | rate ${fmt((100 * median(b.rps)) / median(a.rps), 0)} % | p50 ${fmt((100 * median(b.p50)) / median(a.p50), 0)} %, p99 ${fmt((100 * median(b.p99)) / median(a.p99), 0)} % of the single process's, hub CPU ${fmt((100 * median(b.cpu)) / median(a.cpu), 0)} % | |`,
        );
      }
      const a = of(`log ingest, acknowledged (${BRIDGES} bridges, batches of 50), ${single.label}`);
      const b = of(`log ingest, acknowledged (${BRIDGES} bridges, batches of 50), ${one.label}`);
      say(
        `| one hub in cluster mode against single process, log ingest (medians) | ${fmt((100 * median(b.rps)) / median(a.rps), 0)} % of the logs/s | hub CPU ${fmt((100 * median(b.cpu)) / median(a.cpu), 0)} % per log | |`,
      );
    }
  } finally {
    for (const scene of scenes) await scene.stop().catch(() => {});
  }
  return lines;
}
