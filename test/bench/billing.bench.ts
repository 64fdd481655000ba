import { readFileSync } from 'node:fs';
import { createStorage } from '../../hub/src/db/database.js';
import { cpuMilliseconds, fmt, startBenchHub } from './harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident set size of a process now, in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/** Samples a process's RSS every 100 ms until stopped; answers the peak (MiB). */
function rssPeak(pid: number) {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssMiB(pid));
    },
  };
}

/**
 * The billing run on SQLite: BENCH_BILLING_MEMBERS members (10,000 by default), each with a
 * monthly package they have held for two months and a few days. First the package billing
 * (`POST /jobs {type: packageBilling}`: setup fee and three monthly fees per member), then the
 * invoice run an admin starts (`POST /jobs {type: invoiceRun}`: one invoice per member). Each
 * job's wall time, and the hub process's RSS before, and at its peak during each job.
 */
export async function billingBench(): Promise<string[]> {
  const count = Number(process.env.BENCH_BILLING_MEMBERS ?? 10_000);
  const hub = await startBenchHub();
  const pid = hub.proc.child.pid as number;
  const me = (await hub.api('GET', '/user/me')).body;
  const pkg = await hub.api('POST', '/packages', {
    name: 'Monthly membership',
    setupFee: '20.00',
    recurringFee: '35.00',
    recurringFeePeriod: 'month',
  });
  if (pkg.status !== 201) throw new Error(`POST /packages: ${pkg.status} ${JSON.stringify(pkg.body)}`);

  // Seeding through the database is much faster than 20,000 POSTs; the hub bills them as any.
  const storage = createStorage({ url: `${hub.dataDir}/hub.sqlite` });
  const at = new Date().toISOString();
  const from = new Date(Date.now() - 65 * 86_400_000).toISOString().slice(0, 10);
  await storage.db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i += 500) {
      const n = Math.min(500, count - i);
      const members = await trx
        .insertInto('members')
        .values(
          Array.from({ length: n }, (_, j) => ({
            account: me.account,
            space: me.space,
            memberNumber: String(10_000 + i + j),
            firstName: `First${i + j}`,
            lastName: `Last${(i + j) % 97}`,
            emailAddress: `member${i + j}@bench.example`,
            emailKey: `member${i + j}@bench.example`,
            address: `Street ${i + j}`,
            zip: '1010',
            city: 'Vienna',
            createdAt: at,
            updatedAt: at,
          })) as never,
        )
        .returning('id')
        .execute();
      await trx
        .insertInto('member_packages')
        .values(
          members.map((m) => ({
            account: me.account,
            member: m.id,
            package: pkg.body.id,
            fromDate: from,
            untilDate: null,
            notes: null,
            createdAt: at,
            updatedAt: at,
          })) as never,
        )
        .execute();
    }
  });
  await storage.close();

  // Polling the job is also a probe: how long did a request wait while the job ran?
  let slowest = 0;
  const waitFor = async (jobId: number) => {
    for (;;) {
      const asked = performance.now();
      const job = (await hub.api('GET', `/jobs/${jobId}`)).body;
      slowest = Math.max(slowest, performance.now() - asked);
      if (job.state === 'succeeded' || job.state === 'failed') return job;
      await sleep(200);
    }
  };
  // The hub queues package billing on its own once a minute: let such a job finish first.
  const idle = async () => {
    for (;;) {
      const busy = (await hub.api('GET', '/jobs?limit=1000')).body.filter(
        (j: { state: string }) => j.state === 'queued' || j.state === 'running',
      );
      if (busy.length === 0) return;
      await waitFor(busy[0].id);
    }
  };
  const run = async (type: 'packageBilling' | 'invoiceRun') => {
    await idle();
    const before = rssMiB(pid);
    slowest = 0;
    const peak = rssPeak(pid);
    const started = performance.now();
    const cpu = cpuMilliseconds(pid) ?? 0;
    const queued = await hub.api('POST', '/jobs', { type });
    if (queued.status !== 202) throw new Error(`POST /jobs: ${queued.status} ${JSON.stringify(queued.body)}`);
    const job = await waitFor(queued.body.id);
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = ((cpuMilliseconds(pid) ?? 0) - cpu) / 1000;
    const top = peak.stop();
    if (job.state !== 'succeeded') throw new Error(`${type} failed: ${job.error}`);
    return { seconds, cpuSeconds, before, top, job, slowest };
  };

  const billing = await run('packageBilling');
  const invoicing = await run('invoiceRun');
  const invoices = (invoicing.job.result?.invoices ?? []).length;
  await hub.proc.stop();
  const members = count.toLocaleString('en');
  const figures = (r: typeof billing) =>
    `${fmt(r.seconds, 1)} s (hub CPU ${fmt(r.cpuSeconds, 1)} s); RSS ${fmt(r.before, 0)} -> peak ${fmt(r.top, 0)} MiB; a request meanwhile waited up to ${fmt(r.slowest, 0)} ms`;
  return [
    `| package billing, ${members} members (${billing.job.result?.charges} charges) | ${fmt(count / billing.seconds, 0)} members/s | ${figures(billing)} | 0 |`,
    `| invoice run, ${members} members (${invoices} invoices) | ${fmt(count / invoicing.seconds, 0)} members/s | ${figures(invoicing)} | ${count - invoices} |`,
  ];
}
