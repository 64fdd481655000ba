import type { HubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { startCluster } from '../cluster/support.js';
import { cpuMilliseconds, fmt, type OpenLoopResult, openLoop } from './harness.js';
import { setUp, startFarm } from './switch-on.bench.js';

const BRIDGES = 100;
const rates = process.env.BENCH_RATES?.split(',').map(Number) ?? [200, 400];

/**
 * `npm run bench -- cluster`: switch-on and acknowledged log ingest through one hub on
 * PostgreSQL (single process, no Redis), one hub in cluster mode (PostgreSQL + Redis) and two
 * hubs in cluster mode, in the same run. With two hubs each hub holds half of the bridges and
 * every switch-on goes to the hub that does not hold the bridge (the cross-hub path: command
 * and reply through Redis). Each line gives the hubs' CPU time per call (all hubs together), from
 * which the scaling per added core follows. BENCH_CLUSTER=single,one,two picks scenarios.
 * Needs TEST_DATABASE_URL and redis-server.
 */
export async function clusterBench(seconds: number): Promise<string[]> {
  if (!process.env.TEST_DATABASE_URL)
    return ['| cluster bench skipped: TEST_DATABASE_URL is not set | | | |'];
  process.env.TEST_REDIS_URL ??= 'redis://127.0.0.1:6379';
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  const scenarios = [
    { key: 'single', hubs: 1, clusterMode: false, label: 'one hub, single process (PostgreSQL)' },
    { key: 'one', hubs: 1, clusterMode: true, label: 'one hub in cluster mode (PostgreSQL + Redis)' },
    { key: 'two', hubs: 2, clusterMode: true, label: 'two hubs (PostgreSQL + Redis, every call cross-hub)' },
  ];
  const wanted = process.env.BENCH_CLUSTER?.split(',') ?? scenarios.map((s) => s.key);
  for (const { hubs, clusterMode, label } of scenarios.filter((s) => wanted.includes(s.key))) {
    const cluster = await startCluster({ hubs, clusterMode });
    try {
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
      const run = async (rate: number, secs: number) => {
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
        return results;
      };
      const hubCpu = () =>
        cluster.hubs.reduce(
          (sum, hub: HubProcess) => sum + (cpuMilliseconds(hub.proc.child.pid) ?? Number.NaN),
          0,
        );
      await run(rates[0], 2); // warm-up
      for (const rate of rates) {
        const cpuBefore = hubCpu();
        const results = await run(rate, seconds);
        const sent = results.reduce((sum, r) => sum + r.sent, 0);
        const cpuPerCall = (hubCpu() - cpuBefore) / sent;
        const rps = results.reduce((s, r) => s + r.rps, 0);
        const p50 = Math.max(...results.map((r) => r.p50 ?? Number.NaN));
        const p99 = Math.max(...results.map((r) => r.p99 ?? Number.NaN));
        const errors = results.reduce(
          (s, r: OpenLoopResult) => s + r.non2xx + r.errors + r.timeouts + r.unanswered,
          0,
        );
        say(
          `| switch-on at ${rate}/s, ${label} | ${fmt(rps, 0)} req/s | p50 ${p50} ms, p99 ${p99} ms, hub CPU ${fmt(cpuPerCall, 2)} ms per call | errors ${errors} |`,
        );
      }
      const ingestCpu = hubCpu();
      for (const farm of farms) farm.send(`ingest ${seconds} 50`);
      const ingested = await Promise.all(farms.map(async (farm) => JSON.parse(await farm.next())));
      const perSecond = ingested.reduce((s, r) => s + r.perSecond, 0);
      const logs = ingested.reduce((s, r) => s + r.acked, 0);
      say(
        `| log ingest, acknowledged (${BRIDGES} bridges, batches of 50), ${label} | ${fmt(perSecond, 0)} logs/s | hub CPU ${fmt(((hubCpu() - ingestCpu) * 1000) / logs, 0)} µs per log | |`,
      );
      for (const farm of farms) {
        farm.send('quit');
        await new Promise((r) => farm.child.once('exit', r));
      }
      for (const hub of cluster.hubs) await hub.proc.stop();
    } finally {
      await cluster.dispose();
    }
  }
  return lines;
}
