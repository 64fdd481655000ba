import { setPriority } from 'node:os';
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { hasChromium, launchChromium } from '../support/browser.js';
import type { HubProcess } from '../support/e2e.js';
import { repoRoot } from '../support/processes.js';
import {
  benchMetricsToken,
  cpuMilliseconds,
  fmt,
  hubWarnings,
  loopDelay,
  median,
  type OpenLoopResult,
  openLoop,
  percentile,
  spread,
} from './harness.js';
import { startSwitchOnScene } from './switch-on.bench.js';
import { MEMBER_STATUS_FIELDS } from '../../web/src/live-fields.js';

/** BENCH_WEB=pages,channels,dashboard runs only those parts (all by default). */
const webParts = process.env.BENCH_WEB?.split(',') ?? ['pages', 'channels', 'dashboard'];

/** The gzipped size of the web app's JavaScript chunks whose names start with `prefix`. */
function scriptSize(prefix: string): number {
  const dir = join(repoRoot, 'web/dist/assets');
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.js'))
    .reduce((sum, f) => sum + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
}

/** A browser session for the bench member: an invitation link (no SMTP: the link comes back) redeemed. */
async function sessionCookie(hub: HubProcess, memberId: number): Promise<{ name: string; value: string }> {
  await hub.api('PUT', `/members/${memberId}`, {
    emailAddress: `bench${memberId}@bench.example`,
    lockVersion: (await hub.api('GET', `/members/${memberId}`)).body.lockVersion,
  });
  const invitation = await hub.api('POST', `/members/${memberId}/invitation`);
  const token = new URL(invitation.body.link.replace('#', '?')).searchParams.get('token');
  const res = await fetch(`${hub.base}/user/sign-in-links/redeem`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  const cookie = res.headers.get('set-cookie') ?? '';
  const [name, value] = cookie.split(';')[0].split('=');
  return { name, value };
}

/**
 * How the readers' process is scheduled (BENCH_READERS_SCHED). The 1,000 browsers stand for
 * phones and desktops elsewhere, whose CPU is not the hub machine's:
 * - `idle` (default): Linux's SCHED_IDLE (through `chrt`), CPU no other process wants. With
 *   `nice` the scheduler still lets a reader that holds a core finish its time slice (up to
 *   about 3 ms on Linux 6.6 and later) before the hub, the load generator or the agent farm
 *   that just woke gets it, which the switch-ons' tail then shows;
 * - `nice`: nice 19;
 * - `normal`: competes with the rest as an equal.
 * Either way the hub's own work for the channels (building the batches, the socket writes and
 * the loopback's delivery, which the kernel counts to the writer) stays in every figure.
 */
const readersSched = process.env.BENCH_READERS_SCHED ?? 'idle';

/**
 * How often the readers read their streams, in ms (BENCH_READERS_DRAIN_MS). By default each
 * stream is read once a second (every byte is still read and counted): a reader that waits on
 * its socket is woken by the kernel at every write of the hub, and on loopback that wake-up is
 * part of the hub's write (a cross-CPU interrupt to the other vCPU), which a phone elsewhere does
 * not cost the hub's machine. 0: read each write as it arrives. The hub's writes, their TCP
 * processing on both ends and the bytes queued at the reader are the same either way.
 */
const readersDrainMs = Number(process.env.BENCH_READERS_DRAIN_MS ?? 1000);

/**
 * Opens one live channel (Server-Sent Events) per entry of `follows` in a process of its own
 * (live-readers.mjs), which keeps reading them: the bench's load generator and the readers do
 * not share an event loop. Answers once every channel is open.
 */
async function openLiveChannels(hub: HubProcess, tokens: string[], follows: string[]) {
  const script = new URL('./live-readers.mjs', import.meta.url).pathname;
  const args = [script, JSON.stringify({ base: hub.base, tokens, follows, drainMs: readersDrainMs })];
  const child =
    readersSched === 'idle'
      ? spawn('chrt', ['--idle', '0', process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
      : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  if (readersSched === 'nice' && child.pid !== undefined) setPriority(child.pid, 19);
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const next = () =>
    new Promise<any>((resolve, reject) => {
      const line = lines.shift();
      if (line !== undefined) return resolve(JSON.parse(line));
      waiting.push((l) => resolve(JSON.parse(l)));
      child.once('exit', (code) => reject(new Error(`live readers exited ${code}`)));
    });
  const ready = await next();
  // The hub's writer process (started with its first stream) is the hub's use of a second core.
  pinHubChildren(hub.proc.child.pid);
  return {
    count: ready.ready as number,
    /** The readers' process's CPU time so far, in ms. */
    cpu: () => cpuMilliseconds(child.pid),
    /** Bytes received since the last call, and how many channels the hub has cut off (slow readers). */
    bytes: async () => {
      child.stdin.write('count\n');
      return (await next()) as { bytes: number; cutOff: number };
    },
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * issue 12: the member pages in Chromium (open the machine page -> the button is enabled; tap ->
 * success), the JavaScript a phone downloads, and switch-on latency at 200/s with and without
 * 1,000 live channels open.
 */
export async function webBench(seconds: number): Promise<string[]> {
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  // The member pages load the entry chunk only; the admin console is a chunk of its own.
  say(`| member pages' JavaScript, gzipped | ${fmt(scriptSize('index-') / 1024, 1)} kB | | |`);
  say(`| admin console chunk, gzipped (admins only) | ${fmt(scriptSize('admin-') / 1024, 1)} kB | | |`);
  say(`| report charts chunk (uPlot), gzipped | ${fmt(scriptSize('chart-') / 1024, 1)} kB | | |`);

  if (webParts.includes('pages')) await machinePageBench(say);
  if (webParts.includes('channels')) await liveChannelBench(seconds, say);
  if (webParts.includes('dashboard')) await dashboardBench(seconds, say);
  return lines;
}

type Say = (line: string) => void;

async function stopScene(scene: Awaited<ReturnType<typeof startSwitchOnScene>>) {
  scene.farm.send('quit');
  await new Promise((r) => scene.farm.child.once('exit', r));
  await scene.hub.proc.stop();
}

/** issue 12: open the machine page -> the button is enabled; tap -> success (Chromium, signed in). */
async function machinePageBench(say: Say) {
  if (!hasChromium || process.env.BENCH_WEB_BROWSER === '0') {
    say(
      `| machine page in Chromium | skipped: ${hasChromium ? 'BENCH_WEB_BROWSER=0' : 'no Chromium (apt-get install chromium)'} | | |`,
    );
    return;
  }
  const scene = await startSwitchOnScene();
  const { hub, resources, memberId } = scene;
  const origin = `http://127.0.0.1:${hub.httpPort}`;
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const cookie = await sessionCookie(hub, memberId);
  await context.addCookies([{ ...cookie, url: origin }]);
  const page = await context.newPage();
  const ready: number[] = [];
  const tap: number[] = [];
  const rounds = 40;
  for (let i = 0; i < rounds + 3; i++) {
    const r = resources[i % resources.length];
    await page.goto(`${origin}/r/${r.id}?c=${r.code}`, { waitUntil: 'commit' });
    // From the start of navigation to the enabled button, as the page itself sees it.
    // Plain strings: the benchmark runs under tsx, whose helpers do not exist in the page.
    const enabledAt = (await page.evaluate(`new Promise((resolve) => {
      const check = () => {
        const button = document.querySelector('button.big.primary');
        if (button && !button.disabled) resolve(performance.now());
        else requestAnimationFrame(check);
      };
      check();
    })`)) as number;
    const tapToSuccess = (await page.evaluate(`new Promise((resolve) => {
      const started = performance.now();
      const observer = new MutationObserver(() => {
        if (document.querySelector('.outcome.success')) {
          observer.disconnect();
          resolve(performance.now() - started);
        }
      });
      observer.observe(document.body, { childList: true, subtree: true });
      document.querySelector('button.big.primary').click();
    })`)) as number;
    if (i >= 3) {
      ready.push(enabledAt);
      tap.push(tapToSuccess);
    }
  }
  // issue 16: the API docs page, from the start of navigation to the operations on screen.
  const docs: number[] = [];
  for (let i = 0; i < 6; i++) {
    await page.goto(`${origin}/api/v1/docs/`, { waitUntil: 'commit' });
    const shownAt = (await page.evaluate(`new Promise((resolve) => {
      const check = () => {
        if (document.querySelector('[data-path="/api/v1/members"]')) resolve(performance.now());
        else requestAnimationFrame(check);
      };
      check();
    })`)) as number;
    if (i >= 1) docs.push(shownAt);
  }
  await browser.close();
  say(
    `| API docs page: open -> operations shown (Chromium) | | p50 ${fmt(percentile(docs, 50))} ms, max ${fmt(Math.max(...docs))} ms | |`,
  );
  say(
    `| machine page: open -> button enabled (Chromium, signed in, ${rounds} doors) | | p50 ${fmt(percentile(ready, 50))} ms, p99 ${fmt(percentile(ready, 99))} ms | |`,
  );
  say(
    `| machine page: tap Unlock -> success shown | | p50 ${fmt(percentile(tap, 50))} ms, p99 ${fmt(percentile(tap, 99))} ms | |`,
  );
  await stopScene(scene);
}

/**
 * BENCH_HUB_CPU=1: the hub gets that CPU to itself, and the bench, the agent farm, the load
 * generator and the readers (children of the bench, which inherit its CPUs) the others
 * (BENCH_OTHERS_CPU, default 0), as on a hub's own machine, where none of them runs. On a 2-vCPU
 * machine the hub otherwise shares its CPUs with all of them, and what they do moves its tail.
 */
function pinHub(hubPid: number | undefined, others: (number | undefined)[]) {
  const hubCpu = process.env.BENCH_HUB_CPU;
  if (!hubCpu || hubPid === undefined) return;
  const othersCpu = process.env.BENCH_OTHERS_CPU ?? '0';
  pin(hubCpu, hubPid);
  for (const pid of others) if (pid !== undefined) pin(othersCpu, pid);
  process.stderr.write(`hub on CPU ${hubCpu}, bench, farm, generator and readers on CPU ${othersCpu}\n`);
}

/**
 * BENCH_HUB_CHILDREN_CPU: where the hub's own child processes (the live channel's writer,
 * started with the hub's first stream) run when BENCH_HUB_CPU is set. By default they stay on
 * the hub's CPU, which is then the hub's whole machine (a one-core one) and the other CPU the
 * rest of the world (bridges, phones, clients); set to the others' CPU, the writer stands for
 * the hub's use of a second core, shared there with the world, whose figures then show any of
 * its disturbance.
 */
function pinHubChildren(hubPid: number | undefined) {
  const cpu = process.env.BENCH_HUB_CHILDREN_CPU;
  if (!process.env.BENCH_HUB_CPU || !cpu || hubPid === undefined) return;
  let listed = '';
  try {
    listed = execFileSync('ps', ['-o', 'pid=', '--ppid', String(hubPid)], { encoding: 'utf8' });
  } catch {
    return; // none (ps answers 1)
  }
  const children = listed
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  for (const pid of children) pin(cpu, pid);
}

/** Moves a process, every thread of it, to `cpu` (children it starts later inherit it). */
function pin(cpu: string, pid: number | string) {
  execFileSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' });
}

/** 1,000 channels' queries, cycling through `follows` (none for an empty list: the control). */
/** Tokens of `count` members (the first is the bench member's own `token`), each with its own API key. */
async function channelMembers(hub: HubProcess, count: number, token: string): Promise<string[]> {
  const tokens = [token];
  const create = async (i: number) => {
    const m = (await hub.api('POST', '/members', { firstName: 'Reader', lastName: String(i) })).body;
    const key = (await hub.api('POST', '/api-keys', { member: m.id })).body;
    return (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token as string;
  };
  for (let i = 1; i < count; i += 8)
    tokens.push(
      ...(await Promise.all(Array.from({ length: Math.min(8, count - i) }, (_, j) => create(i + j)))),
    );
  return tokens;
}

const thousand = (follows: string[]) =>
  follows.length ? Array.from({ length: 1000 }, (_, i) => follows[i % follows.length]) : [];

const failures = (r: OpenLoopResult) => r.non2xx + r.errors + r.timeouts + r.unanswered;

/** The requests the generator sent again, as a browser would (see open-loop.mjs), if any. */
const retries = (r: OpenLoopResult) =>
  r.retried[408] + r.retried.closed
    ? `, sent again: ${r.retried[408]} after an unsolicited 408, ${r.retried.closed} after a close`
    : '';

/**
 * issue 12: switch-on latency at 200/s with 1,000 live channels open against the same without
 * them, on one hub, in interleaved rounds (BENCH_ROUNDS, default 4): each round runs "without"
 * and "with" in turn, the order alternating, for each kind of channel (one resource each: phones
 * at machine pages; every resource each: members' home pages, as the bench's token is a
 * member's). A door's switch-on leaves its shown state as it was (the log is stopped at once), so
 * in every run the farm's bridges also switch their relays on and off, 50 changes a second, for
 * the channels to carry.
 */
async function liveChannelBench(seconds: number, say: Say) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
  const scene = await startSwitchOnScene({ env: { HUB_METRICS_TOKEN: benchMetricsToken } });
  const { hub, token, resources, requests, farm } = scene;
  pinHub(hub.proc.child.pid, [process.pid, farm.child.pid]);
  const origin = `http://127.0.0.1:${hub.httpPort}`;
  /** The hub's CPU time per switch-on of the last run, in milliseconds. */
  let cpuPerCall = Number.NaN;
  /** The hub's event-loop delay during the last run (p99 and max, ms). */
  let delay = { p99: Number.NaN, max: Number.NaN };
  /** What the hub said about failures in the last run (its warnings and errors). */
  let warnings: string[] = [];
  const run = async () => {
    const logFrom = hub.proc.output().length;
    await loopDelay(hub);
    const cpuBefore = cpuMilliseconds(hub.proc.child.pid);
    farm.send(`events 50 ${seconds} states`);
    const r = await openLoop({ url: origin, requests, seconds, rate: 200 });
    await farm.next();
    const cpuAfter = cpuMilliseconds(hub.proc.child.pid);
    delay = await loopDelay(hub);
    cpuPerCall = cpuBefore === null || cpuAfter === null ? Number.NaN : (cpuAfter - cpuBefore) / r.sent;
    warnings = failures(r) ? hubWarnings(hub, logFrom) : [];
    return r;
  };
  // The 1,000 channels are 1,000 members' (BENCH_CHANNEL_MEMBERS: how many members share them;
  // 1: every channel is the bench member's, as before 2026-11-25), each with an API key.
  const members = await channelMembers(hub, Number(process.env.BENCH_CHANNEL_MEMBERS ?? 1000), token);
  // Warm-up as long as a run: the first seconds of a new hub (compiling, caches, the database
  // file growing) would otherwise land on the first round.
  await openLoop({ url: origin, requests, seconds, rate: 200 });
  // BENCH_CHANNELS=one or =all runs only that kind of channel (both by default). `none` is the
  // control: neither of its runs opens a channel, so its ratio shows how far apart two runs of
  // the same work come out on this machine.
  const only = process.env.BENCH_CHANNELS?.split(',') ?? ['one', 'all'];
  // The channels are opened as the web app's member pages open them (`format=changes`: each
  // batch as the fields that changed; `field=...`: the fields those pages show);
  // BENCH_LIVE_FORMAT=full asks for a whole status per changed resource, BENCH_LIVE_FIELDS=all
  // for every field of a status (as the admin pages do).
  const fields =
    process.env.BENCH_LIVE_FIELDS === 'all' ? '' : MEMBER_STATUS_FIELDS.map((f) => `&field=${f}`).join('');
  const format = `?format=${process.env.BENCH_LIVE_FORMAT ?? 'changes'}${fields}`;
  const kinds = [
    { key: 'one', label: 'one resource each', follows: resources.map((r) => `${format}&resource=${r.id}`) },
    { key: 'all', label: 'all resources each', follows: [format] },
    { key: 'none', label: 'none (control)', follows: [] as string[] },
  ].filter((kind) => only.includes(kind.key));
  const report = (label: string, r: OpenLoopResult) => {
    for (const line of warnings) process.stderr.write(`hub during "${label}": ${line}\n`);
    say(
      `| ${label} | ${fmt(r.rps, 0)} req/s | p50 ${r.p50} ms, p99 ${r.p99} ms, hub CPU ${fmt(cpuPerCall, 2)} ms per call, hub event-loop delay p99 ${fmt(delay.p99, 1)} ms, max ${fmt(delay.max, 1)} ms | errors ${failures(r)}${failures(r) ? ` ${JSON.stringify(r.statusCodes)}` : ''}${retries(r)} |`,
    );
  };
  for (const kind of kinds) {
    const without = { p50: [] as number[], p99: [] as number[], cpu: [] as number[] };
    const withChannels = {
      p50: [] as number[],
      p99: [] as number[],
      cpu: [] as number[],
      kB: [] as number[],
      readers: [] as number[],
    };
    let cutOff = 0;
    for (let round = 0; round < rounds; round++) {
      for (const open of round % 2 === 0 ? [false, true] : [true, false]) {
        // Both runs start the same way: a readers' process is started and asked for its count
        // (with no channel for the run without), so they differ only by the channels.
        const channels = await openLiveChannels(hub, members, open ? thousand(kind.follows) : []);
        await channels.bytes(); // the snapshots are not part of the run
        const readersBefore = channels.cpu();
        const r = await run();
        const received = await channels.bytes();
        const readersAfter = channels.cpu();
        await channels.close();
        if (!open) {
          without.p50.push(r.p50 ?? Number.NaN);
          without.p99.push(r.p99 ?? Number.NaN);
          without.cpu.push(cpuPerCall);
          report(`round ${round + 1}: switch-on at 200/s, no live channels`, r);
          continue;
        }
        if (readersBefore !== null && readersAfter !== null)
          withChannels.readers.push((readersAfter - readersBefore) / seconds);
        const kB = received.bytes / 1024;
        cutOff = received.cutOff;
        withChannels.p50.push(r.p50 ?? Number.NaN);
        withChannels.p99.push(r.p99 ?? Number.NaN);
        withChannels.cpu.push(cpuPerCall);
        withChannels.kB.push(kB);
        report(
          `round ${round + 1}: switch-on at 200/s, ${channels.count} live channels, ${kind.label}${cutOff ? ` (${cutOff} cut off as too slow)` : ''}`,
          r,
        );
      }
    }
    // What carrying the channels costs the hub by itself: its CPU per second while the farm's
    // relays change 50 times a second and no switch-on is sent, without and with the channels
    // (two pairs, A B then B A). CPU time moves much less with the neighbours' load than latency.
    const carry = { without: [] as number[], with: [] as number[] };
    for (const open of [false, true, true, false]) {
      const channels = await openLiveChannels(hub, members, open ? thousand(kind.follows) : []);
      await channels.bytes();
      const before = cpuMilliseconds(hub.proc.child.pid);
      farm.send(`events 50 ${seconds} states`);
      await farm.next();
      const after = cpuMilliseconds(hub.proc.child.pid);
      await channels.close();
      if (before !== null && after !== null)
        carry[open ? 'with' : 'without'].push((after - before) / seconds);
    }
    say(
      `| hub CPU per second, 50 relay changes/s and no switch-ons: without channels, with 1000 (${kind.label}), two runs each | | ${carry.without.map((v) => fmt(v, 0)).join(', ')} ms/s; ${carry.with.map((v) => fmt(v, 0)).join(', ')} ms/s | |`,
    );
    const ratio = (a: number[], b: number[]) => `${fmt((median(a) / median(b) - 1) * 100, 1)} %`;
    say(
      `| switch-on at 200/s, no live channels: median of ${rounds} rounds (min-max) | | p50 ${spread(without.p50)} ms, p99 ${spread(without.p99)} ms, hub CPU ${spread(without.cpu, 3)} ms per call | |`,
    );
    say(
      `| switch-on at 200/s, ${kind.follows.length ? 1000 : 0} live channels, ${kind.label}: median of ${rounds} rounds (min-max) | | p50 ${spread(withChannels.p50)} ms, p99 ${spread(withChannels.p99)} ms, hub CPU ${spread(withChannels.cpu, 3)} ms per call | |`,
    );
    // Each round's pair ran back to back: how many of them were slower with the channels.
    const higher = (a: number[], b: number[]) => `${a.filter((v, i) => v > b[i]).length} of ${a.length}`;
    say(
      `| with against without (medians), ${kind.label} | | p50 ${ratio(withChannels.p50, without.p50)}, p99 ${ratio(withChannels.p99, without.p99)}, hub CPU ${ratio(withChannels.cpu, without.cpu)}; pairs higher with: p99 ${higher(withChannels.p99, without.p99)}, hub CPU ${higher(withChannels.cpu, without.cpu)} | |`,
    );
    say(
      `| those channels: data received per run, median | ${fmt(median(withChannels.kB), 0)} kB | readers' process CPU ${fmt(median(withChannels.readers), 0)} ms/s | |`,
    );
  }
  await stopScene(scene);
}

/**
 * issue 13: the admin dashboard with 1,000 resources (each with a bridge, held online by the agent
 * farm) while the farm emits 50 events a second for `seconds`: taps of unknown cards (a denied
 * entry in the activity feed, named by the card number) and relays switching on (a card's relay
 * state), in turn. Chromium on /admin, signed in as the owner; a MutationObserver in the page
 * notes when each event's entry or state appears, and the bench matches it to the moment the
 * farm published it (both read the same wall clock). An event never seen counts as missed.
 */
async function dashboardBench(seconds: number, say: Say) {
  if (!hasChromium || process.env.BENCH_WEB_BROWSER === '0') {
    say(`| dashboard in Chromium | skipped: ${hasChromium ? 'BENCH_WEB_BROWSER=0' : 'no Chromium'} | | |`);
    return;
  }
  const count = Number(process.env.BENCH_DASHBOARD_RESOURCES ?? 1000);
  const rate = 50;
  const scene = await startSwitchOnScene({ count });
  const { hub, resources } = scene;
  const origin = `http://127.0.0.1:${hub.httpPort}`;
  const owner = (await hub.api('GET', '/user/me')).body;
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ ...(await sessionCookie(hub, owner.id)), url: origin }]);
    const page = await context.newPage();
    const opened = performance.now();
    await page.goto(`${origin}/admin`);
    // Polled from here: the page's CSP (rightly) refuses the string evaluation waitForFunction uses.
    for (let shown = 0; shown < count; await new Promise((r) => setTimeout(r, 100))) {
      shown = (await page.evaluate(`document.querySelectorAll('ul.cards > li').length`)) as number;
      if (performance.now() - opened > 60_000) throw new Error(`dashboard: ${shown} of ${count} cards`);
    }
    const loadMs = performance.now() - opened;
    // The cards carry the resource's name; the feed's entries the card number of the tap.
    await page.evaluate(`(() => {
      const seen = { taps: {}, states: {}, longTasks: 0, longTaskMs: 0 };
      window.__seen = seen;
      new MutationObserver((records) => {
        const at = Date.now();
        for (const record of records)
          for (const node of record.addedNodes) {
            const match = /card (BE[0-9A-F]{8})/.exec(node.textContent || '');
            if (match && !(match[1] in seen.taps)) seen.taps[match[1]] = at;
          }
      }).observe(document.querySelector('ol.feed'), { childList: true });
      new MutationObserver((records) => {
        const at = Date.now();
        for (const record of records) {
          const element = record.target.nodeType === 1 ? record.target : record.target.parentElement;
          const card = element && element.closest('li.card');
          if (!card) continue;
          const name = card.getAttribute('aria-label');
          if (!(name in seen.states) && card.textContent.includes('on since')) seen.states[name] = at;
        }
      }).observe(document.querySelector('ul.cards'), { childList: true, subtree: true, characterData: true });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          seen.longTasks++;
          seen.longTaskMs += entry.duration;
        }
      }).observe({ type: 'longtask' });
    })()`);
    scene.farm.send(`events ${rate} ${seconds}`);
    const sent: { kind: 'tap' | 'state'; resource: number; card?: string; at: number }[] = JSON.parse(
      await scene.farm.next(),
    );
    await new Promise((r) => setTimeout(r, 3000)); // late arrivals
    // A page whose main thread is swamped answers late or never: that is a result too.
    const asked = performance.now();
    const seen = (await Promise.race([
      page.evaluate('window.__seen'),
      new Promise((r) => setTimeout(r, 60_000)),
    ])) as {
      taps: Record<string, number>;
      states: Record<string, number>;
      longTasks: number;
      longTaskMs: number;
    };
    if (!seen) {
      say(
        `| dashboard, ${count} resources, ${rate} events/s | page did not answer within 60 s after the events | | |`,
      );
      return;
    }
    say(`| the page answered the bench's question after | | ${fmt(performance.now() - asked, 0)} ms | |`);
    const names = new Map(resources.map((r) => [r.id, r.name]));
    const delays = { tap: [] as number[], state: [] as number[] };
    let missed = 0;
    for (const e of sent) {
      const shownAt = e.kind === 'tap' ? seen.taps[e.card ?? ''] : seen.states[names.get(e.resource) ?? ''];
      if (shownAt === undefined) missed++;
      else delays[e.kind].push(shownAt - e.at);
    }
    const all = [...delays.tap, ...delays.state];
    const within = all.filter((d) => d <= 1000).length;
    const figures = (values: number[]) =>
      values.length
        ? `p50 ${fmt(percentile(values, 50), 0)} ms, p99 ${fmt(percentile(values, 99), 0)} ms, max ${fmt(Math.max(...values), 0)} ms`
        : 'none seen';
    say(
      `| dashboard, ${count} resources: open /admin -> every card shown (Chromium) | | ${fmt(loadMs, 0)} ms | |`,
    );
    say(
      `| dashboard, ${count} resources, ${rate} events/s for ${seconds} s: event -> on screen, all ${sent.length} | | ${figures(all)} | missed ${missed} |`,
    );
    say(`| those events within 1 s | ${fmt((within / sent.length) * 100, 1)} % | | |`);
    say(`| taps of unknown cards -> entry in the activity feed | | ${figures(delays.tap)} | |`);
    say(`| relays switching on -> state on the resource's card | | ${figures(delays.state)} | |`);
    say(
      `| the page's main thread meanwhile: long tasks (> 50 ms) | ${seen.longTasks} | ${fmt(seen.longTaskMs, 0)} ms in all | |`,
    );
  } finally {
    await browser.close();
    await stopScene(scene);
  }
}
