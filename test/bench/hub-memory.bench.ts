import { readFileSync } from 'node:fs';
import { HUB_NODE_FLAGS, startBenchHub } from './harness.js';

function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The median of 5 RSS samples a second apart (MiB), as "median (min-max)". */
async function sampleRss(pid: number): Promise<string> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssMiB(pid));
    await sleep(1000);
  }
  samples.sort((a, b) => a - b);
  return `${samples[2].toFixed(1)} MiB median (${samples[0].toFixed(1)}-${samples[4].toFixed(1)})`;
}

/**
 * Idle RSS of a real hub process on its first start (a fresh data directory, SQLite, no cluster,
 * no Home Assistant, no mail, no metrics), as its systemd unit runs it (with the unit's node
 * flags, if it has any) and without flags: 10 s after it listens, and again after 75 s (V8's memory reducer may have
 * given back by then the young generation that loading the modules grew; it does not always run).
 * BENCH_HUB_CLI measures another build.
 */
export async function hubMemoryBench(): Promise<string[]> {
  const lines: string[] = [];
  // Without flags, and as the unit runs it when its ExecStart has node flags.
  for (const flags of HUB_NODE_FLAGS.length ? [HUB_NODE_FLAGS, []] : [[]]) {
    const hub = await startBenchHub(undefined, undefined, flags);
    const pid = hub.proc.child.pid as number;
    await sleep(10_000);
    const early = await sampleRss(pid);
    await sleep(60_000);
    const settled = await sampleRss(pid);
    await hub.proc.stop();
    const how = flags.length
      ? `as the unit runs it (${flags.join(' ')})`
      : 'as `makerspace-hub serve` runs it';
    lines.push(
      `| hub idle RSS, first start on SQLite, ${how}: after 10 s | - | ${early} | 0 |`,
      `| hub idle RSS, ${how}: after 75 s | - | ${settled} | 0 |`,
    );
  }
  return lines;
}
