/**
 * Does the billing run keep memory that grows with the members? `node --expose-gc --import tsx
 * test/bench/billing-heap.ts 10000` bills N members with a monthly package in this process (a
 * hub on an SQLite file in a temp dir) and prints the live heap after a forced collection:
 * seeded, after package billing, after the invoice run (docs/PERFORMANCE.md, "Billing run").
 */
import { randomBytes } from 'node:crypto';
import { createLogger } from '@makerspace/shared';
import { enqueueJob } from '../../hub/src/billing/jobs.js';
import { billAccountPackages } from '../../hub/src/billing/package-billing.js';
import { openHub } from '../../hub/src/hub.js';
import { createAccountWithOwner } from '../../hub/src/identity/bootstrap.js';
import { stopAll, tempDir } from '../support/processes.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx');
const count = Number(process.argv[2] ?? 10_000);
const dir = tempDir('billing-heap');
const hub = await openHub(
  {
    httpHost: '127.0.0.1',
    httpPort: 0,
    mqttHost: '127.0.0.1',
    mqttPort: 0,
    dataDir: dir,
    databaseUrl: `${dir}/hub.sqlite`,
    publicUrl: undefined,
    secretFile: `${dir}/secret`,
    logLevel: 'silent',
  },
  { secret: randomBytes(32), logger: createLogger({ name: 'billing-heap', level: 'silent' }) },
);
await hub.jobs.stop();
const db = hub.ctx.db;
const owner = await createAccountWithOwner(db, hub.ctx.tokens, {
  accountName: 'Heap',
  emailAddress: 'o@heap.example',
});
const at = new Date().toISOString();
const pkg = await db
  .insertInto('packages')
  .values({
    account: owner.accountId,
    name: 'Monthly',
    setupFee: '20.00',
    recurringFee: '35.00',
    createdAt: at,
    updatedAt: at,
  } as never)
  .returning('id')
  .executeTakeFirstOrThrow();
const from = new Date(Date.now() - 65 * 86_400_000).toISOString().slice(0, 10);
await db.transaction().execute(async (trx) => {
  for (let i = 0; i < count; i += 500) {
    const members = await trx
      .insertInto('members')
      .values(
        Array.from({ length: Math.min(500, count - i) }, (_, j) => ({
          account: owner.accountId,
          space: owner.spaceId,
          firstName: `Member${i + j}`,
          lastName: 'Heap',
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
          account: owner.accountId,
          member: m.id,
          package: pkg.id,
          fromDate: from,
          createdAt: at,
          updatedAt: at,
        })) as never,
      )
      .execute();
  }
});

const live = (label: string) => {
  gc();
  gc();
  const m = process.memoryUsage();
  console.log(
    `${label}: live heap ${(m.heapUsed / 1048576).toFixed(1)} MiB, RSS ${(m.rss / 1048576).toFixed(1)} MiB`,
  );
};
live(`${count} members seeded`);
const billed = await billAccountPackages(db, owner.accountId, new Date());
live(`after package billing (${billed.charges} charges)`);
await enqueueJob(db, owner.accountId, 'invoiceRun', {}, new Date(), null);
await hub.jobs.runDue();
live('after the invoice run');
await hub.close();
await stopAll();
