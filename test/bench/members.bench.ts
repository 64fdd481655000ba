import { spawn } from 'node:child_process';
import { createStorage } from '../../hub/src/db/database.js';
import { cpuMilliseconds, fmt, load, startBenchHub } from './harness.js';

/** The bare Fastify hello-world of hello-world.mjs: its URL, process id and a stop. */
async function startHelloWorld(): Promise<{ url: string; pid: number | undefined; stop(): void }> {
  const child = spawn(process.execPath, [new URL('./hello-world.mjs', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]).port);
    });
    child.on('exit', (code) => reject(new Error(`hello-world exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid, stop: () => child.kill() };
}

/** issue 2: 10,000 members on SQLite; GET /members?limit=50 and GET /members/{id} under load. */
export async function membersBench(seconds: number): Promise<string[]> {
  const hub = await startBenchHub();
  const me = (await hub.api('GET', '/user/me')).body;
  // Seeding through the database is much faster than 10,000 POSTs; the hub serves them as any.
  const storage = createStorage({ url: `${hub.dataDir}/hub.sqlite` });
  const at = new Date().toISOString();
  await storage.db.transaction().execute(async (trx) => {
    for (let i = 0; i < 10_000; i += 500) {
      const rows = Array.from({ length: 500 }, (_, j) => {
        const n = i + j;
        return {
          account: me.account,
          space: me.space,
          memberNumber: String(10_000 + n),
          firstName: `First${n}`,
          lastName: `Last${n % 97}`,
          emailAddress: `member${n}@bench.example`,
          emailKey: `member${n}@bench.example`,
          city: 'Vienna',
          createdAt: at,
          updatedAt: at,
        };
      });
      await trx
        .insertInto('members')
        .values(rows as any)
        .execute();
    }
  });
  await storage.close();
  const some = (await hub.api('GET', '/members?offset=5000&limit=1')).body[0];
  const lines: string[] = [];
  // BENCH_MEMBERS=list or =one measures only that request (for profiling one of them).
  const only = process.env.BENCH_MEMBERS;
  if (only !== 'one') {
    const list = await load({
      url: `${hub.base}/members?limit=50`,
      token: hub.token,
      seconds,
      connections: 20,
    });
    lines.push(
      `| GET /members?limit=50 (10,001 members) | ${fmt(list.rps, 0)} req/s | p50 ${list.p50} ms, p99 ${list.p99} ms | errors ${list.errors + list.non2xx} |`,
    );
  }
  if (only !== 'list') {
    // The record read beside a bare Fastify hello-world in the same run, with the same load: the
    // ratio of their rates says what the hub's own work costs on this machine, whatever its speed.
    const hello = await startHelloWorld();
    try {
      // Both servers first answer unmeasured for BENCH_WARMUP seconds (2 by default): the JIT
      // compiles their hot paths then, a cost paid once and not per request.
      const warmup = Number(process.env.BENCH_WARMUP ?? 2);
      if (warmup > 0) {
        await load({ url: hello.url, token: hub.token, seconds: warmup, connections: 20 });
        await load({
          url: `${hub.base}/members/${some.id}`,
          token: hub.token,
          seconds: warmup,
          connections: 20,
        });
      }
      const helloCpu = cpuMilliseconds(hello.pid);
      const bare = await load({ url: hello.url, token: hub.token, seconds, connections: 20 });
      const bareCpu = (cpuMilliseconds(hello.pid) ?? 0) - (helloCpu ?? 0);
      const hubCpu = cpuMilliseconds(hub.proc.child.pid);
      const one = await load({
        url: `${hub.base}/members/${some.id}`,
        token: hub.token,
        seconds,
        connections: 20,
      });
      const oneCpu = (cpuMilliseconds(hub.proc.child.pid) ?? 0) - (hubCpu ?? 0);
      const perRequest = (ms: number, requests: number) => fmt((ms * 1000) / Math.max(1, requests), 0);
      lines.push(
        `| GET /members/{id} | ${fmt(one.rps, 0)} req/s (${fmt(one.rps / bare.rps, 2)}x hello-world), hub CPU ${perRequest(oneCpu, one.requests)} µs/request | p50 ${one.p50} ms, p99 ${one.p99} ms | errors ${one.errors + one.non2xx} |`,
        `| bare Fastify hello-world (same run) | ${fmt(bare.rps, 0)} req/s, CPU ${perRequest(bareCpu, bare.requests)} µs/request | p50 ${bare.p50} ms, p99 ${bare.p99} ms | errors ${bare.errors + bare.non2xx} |`,
      );
    } finally {
      hello.stop();
    }
  }
  if (!only || only === 'search') {
    // The admin console's search (issue 13): server time under 100 ms at p99. A few connections,
    // as a handful of admins typing, not a load test: the figure is the latency of one search.
    await hub.api('PUT', `/members/${some.id}/key`, { type: 'em4102', token: '0A1B2C3D4E' });
    for (const [what, q] of [
      ['a name part (about 100 hits)', 'last42'],
      ['an e-mail address', 'member9999@bench.example'],
      ['a member number', '15000'],
      ['a card id', '0A1B2C3D4E'],
    ]) {
      const search = await load({
        url: `${hub.base}/members?limit=50&q=${encodeURIComponent(q)}`,
        token: hub.token,
        seconds: Math.max(2, Math.round(seconds / 2)),
        connections: 2,
      });
      lines.push(
        `| GET /members?q= ${what} (10,001 members) | ${fmt(search.rps, 0)} req/s | p50 ${search.p50} ms, p99 ${search.p99} ms | errors ${search.errors + search.non2xx} |`,
      );
    }
  }
  await hub.proc.stop();
  return lines;
}
