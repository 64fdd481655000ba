import type { HubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { startCluster } from '../cluster/support.js';
import { fmt, type OpenLoopResult, openLoop } from './harness.js';
import { setUp, startFarm } from './switch-on.bench.js';

const BRIDGES = 100;
const rates = process.env.BENCH_RATES?.split(',').map(Number) ?? [200, 400];

/**
 * `npm run bench -- cluster`: switch-on and acknowledged log ingest through one hub on
 * PostgreSQL (no Redis) against two hubs in cluster mode on the same PostgreSQL and a Redis,
 * in the same run. With two hubs each hub holds half of the bridges and every switch-on goes to
 * the hub that does not hold the bridge (the cross-hub path: command and reply through Redis).
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
  for (const hubs of [1, 2]) {
    const cluster = await startCluster({ hubs, clusterMode: hubs > 1 });
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
      const label =
        hubs === 1 ? 'one hub (PostgreSQL)' : 'two hubs (PostgreSQL + Redis, every call cross-hub)';
      await run(rates[0], 2); // warm-up
      for (const rate of rates) {
        const results = await run(rate, seconds);
        const rps = results.reduce((s, r) => s + r.rps, 0);
        const p50 = Math.max(...results.map((r) => r.p50 ?? Number.NaN));
        const p99 = Math.max(...results.map((r) => r.p99 ?? Number.NaN));
        const errors = results.reduce(
          (s, r: OpenLoopResult) => s + r.non2xx + r.errors + r.timeouts + r.unanswered,
          0,
        );
        say(
          `| switch-on at ${rate}/s, ${label} | ${fmt(rps, 0)} req/s | p50 ${p50} ms, p99 ${p99} ms | errors ${errors} |`,
        );
      }
      for (const farm of farms) farm.send(`ingest ${seconds} 50`);
      const ingested = await Promise.all(farms.map(async (farm) => JSON.parse(await farm.next())));
      const perSecond = ingested.reduce((s, r) => s + r.perSecond, 0);
      say(
        `| log ingest, acknowledged (${BRIDGES} bridges, batches of 50), ${label} | ${fmt(perSecond, 0)} logs/s | | |`,
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
