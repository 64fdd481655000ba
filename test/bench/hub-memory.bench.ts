import { readFileSync } from 'node:fs';
import { startBenchHub } from './harness.js';

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
 * no Home Assistant, no mail), as `makerspace-hub serve` runs it: 10 s after it listens, and
 * again after 75 s, once V8's memory reducer has run (about a minute into an idle process, it
 * gives back the young generation that loading the modules grew). BENCH_HUB_CLI measures
 * another build.
 */
export async function hubMemoryBench(): Promise<string[]> {
  const hub = await startBenchHub();
  const pid = hub.proc.child.pid as number;
  await sleep(10_000);
  const early = await sampleRss(pid);
  await sleep(60_000);
  const settled = await sampleRss(pid);
  await hub.proc.stop();
  return [
    `| hub idle RSS, first start on SQLite: after 10 s | - | ${early} | 0 |`,
    `| hub idle RSS, after 75 s | - | ${settled} | 0 |`,
  ];
}
