import { stopAll } from '../support/processes.js';
import { agentMemoryBench } from './agent-memory.bench.js';
import { billingBench } from './billing.bench.js';
import { clusterBench } from './cluster.bench.js';
import { hubMemoryBench } from './hub-memory.bench.js';
import { importBench } from './import.bench.js';
import { membersBench } from './members.bench.js';
import { simulateBench } from './simulate.bench.js';
import { switchOnBench } from './switch-on.bench.js';
import { webBench } from './web.bench.js';

/**
 * `npm run bench [members|switch-on|ingest|web|agent-memory|hub-memory|cluster|billing|import|simulate] [--seconds N]`: prints a
 * Markdown table of figures.
 */
async function main() {
  const args = process.argv.slice(2);
  const secondsAt = args.indexOf('--seconds');
  const seconds = secondsAt >= 0 ? Number(args[secondsAt + 1]) : 10;
  const only = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--seconds');
  const want = (name: string) => only.length === 0 || only.includes(name);
  const lines: string[] = ['| scenario | throughput | latency | errors |', '| --- | --- | --- | --- |'];
  try {
    if (want('members')) lines.push(...(await membersBench(seconds)));
    if (want('switch-on') || want('ingest'))
      lines.push(...(await switchOnBench(seconds, { switchOn: want('switch-on'), ingest: want('ingest') })));
    if (want('web')) lines.push(...(await webBench(seconds)));
    if (want('agent-memory')) lines.push(...(await agentMemoryBench()));
    // Only when asked for: it waits more than a minute for the idle hub to settle.
    if (only.includes('hub-memory')) lines.push(...(await hubMemoryBench()));
    // Only when asked for: it bills 10,000 members (BENCH_BILLING_MEMBERS), a few minutes.
    if (only.includes('billing')) lines.push(...(await billingBench()));
    // Only when asked for: it seeds a second hub with 1,000 members first (BENCH_IMPORT_MEMBERS).
    if (only.includes('import')) lines.push(...(await importBench()));
    // Only when asked for: it seeds 1,000 members and 50 resources.
    if (only.includes('simulate')) lines.push(...(await simulateBench()));
    // Only when asked for: it needs PostgreSQL and redis-server.
    if (only.includes('cluster')) lines.push(...(await clusterBench(seconds)));
  } finally {
    await stopAll();
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
