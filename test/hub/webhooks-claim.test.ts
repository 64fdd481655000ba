import { webhookUrlColumns } from '../../hub/src/webhooks/webhooks.js';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@makerspace/shared';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrate.js';
import { emitEvent } from '../../hub/src/db/outbox.js';
import { systemClock } from '../../hub/src/clock.js';
import { createAccountWithOwner } from '../../hub/src/identity/bootstrap.js';
import { TokenBox } from '../../hub/src/secrets.js';
import { defaultWebhookSettings, WebhookWorker } from '../../hub/src/webhooks/worker.js';
import { freshDatabase, type TestDatabase } from '../support/dialects.js';
import { sleep, waitFor } from './webhooks-helpers.js';

/**
 * Several hubs on one PostgreSQL database each run a webhook worker. Each worker here has a
 * connection pool of its own, as a hub process would; they race for the same deliveries.
 */
const pgUrl = process.env.TEST_DATABASE_URL;
const describePg = pgUrl ? describe : describe.skip;
const title = pgUrl
  ? 'webhook claims with several workers on one PostgreSQL database'
  : 'webhook claims with several workers on one PostgreSQL database skipped: TEST_DATABASE_URL is not set';

interface Arrival {
  hook: number;
  delivery: number;
  event: number;
  status: number;
  at: number;
}

/** A receiver on 127.0.0.1 for several webhooks (/hook/<n>) that notes overlapping requests. */
async function startReceiver(answer: (a: Omit<Arrival, 'status' | 'at'>) => number = () => 200) {
  const arrivals: Arrival[] = [];
  const open = new Map<number, number>();
  const overlaps: string[] = [];
  const server = http.createServer((req, res) => {
    const hook = Number(req.url?.split('/').pop());
    const now = (open.get(hook) ?? 0) + 1;
    open.set(hook, now);
    if (now > 1) overlaps.push(`webhook ${hook}: ${now} requests at once`);
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const delivery = Number(req.headers['x-makerspace-delivery']);
      const status = answer({ hook, delivery, event: body.id });
      // A little time in the receiver widens the window in which a second sender could step in.
      setTimeout(
        () => {
          open.set(hook, (open.get(hook) ?? 1) - 1);
          arrivals.push({ hook, delivery, event: body.id, status, at: Date.now() });
          res.writeHead(status).end(status === 200 ? 'ok' : 'no');
        },
        Math.floor(Math.random() * 8),
      ).unref();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    base,
    arrivals,
    overlaps,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describePg(title, () => {
  let db: TestDatabase;
  let main: Storage;
  const tokens = new TokenBox(randomBytes(32));
  const logger = createLogger({ name: 'test-claims', level: 'silent' });
  const teardown: (() => Promise<void>)[] = [];
  let accounts = 0;

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    main = createStorage({ url: db.url, schema: db.schema });
    await migrateToLatest(main.db, 'postgres');
  });
  afterEach(async () => {
    for (const close of teardown.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    await main?.close();
    await db?.dispose();
  });

  /** `count` workers, each on a pool of its own, polling often; stopped after the test. */
  const workers = (count: number) => {
    const list: WebhookWorker[] = [];
    for (let i = 0; i < count; i++) {
      const storage = createStorage({ url: db.url, schema: db.schema, poolSize: 4 });
      const worker = new WebhookWorker({
        db: storage.db,
        dialect: 'postgres',
        tokens,
        logger,
        clock: systemClock,
        settings: {
          ...defaultWebhookSettings,
          allowInsecure: true,
          pollIntervalMs: 15,
          timeoutMs: 3000,
          retryBaseMs: 20,
          retryMaxMs: 100,
        },
      });
      list.push(worker);
      teardown.push(async () => {
        await worker.stop();
        await storage.close();
      });
    }
    return list;
  };

  /** A new account with `count` active webhooks for members, sending to base/<n>. */
  const account = async (base: string, count: number) => {
    accounts++;
    const owner = await createAccountWithOwner(main.db, tokens, {
      accountName: `Claims ${accounts}`,
      emailAddress: `claims${accounts}@x.example`,
    });
    const at = new Date().toISOString();
    const hooks: number[] = [];
    for (let i = 0; i < count; i++) {
      const row = await main.db
        .insertInto('webhooks')
        .values({
          account: owner.accountId,
          ...webhookUrlColumns(`${base}/${i}`, (plain) => tokens.seal(plain)),
          label: `hook ${i}`,
          notes: null,
          state: 'active',
          categories: JSON.stringify(['member']),
          secretEncrypted: tokens.seal(`whsec_${randomBytes(24).toString('base64')}`),
          failingSince: null,
          createdAt: at,
          updatedAt: at,
          updatedBy: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      hooks.push(row.id);
    }
    return { account: owner.accountId, hooks };
  };

  const emit = (accountId: number, n: number) =>
    main.db.transaction().execute(async (trx) => {
      const id = await emitEvent(trx, { account: accountId, type: 'member_created', details: { n } });
      if (id === null) throw new Error('no webhook wanted the event');
      return id;
    });

  it('three workers send each of 150 deliveries once, per webhook in order and one at a time', async () => {
    // Every fifth event fails its first attempt: its retry may be taken by any worker.
    const failedOnce = new Set<number>();
    const r = await startReceiver(({ delivery, event }) => {
      if (event % 5 === 0 && !failedOnce.has(delivery)) {
        failedOnce.add(delivery);
        return 500;
      }
      return 200;
    });
    teardown.push(() => r.close());
    const { account: accountId, hooks } = await account(r.base, 3);
    const events: number[] = [];
    for (let n = 0; n < 50; n++) events.push(await emit(accountId, n));
    // All three start together on the same full outbox: they race for the same heads.
    for (const w of workers(3)) w.start();

    const delivered = () => r.arrivals.filter((a) => a.status === 200);
    await waitFor('150 deliveries', () => delivered().length >= 150, 30_000);
    await sleep(300); // room for a second sending of any delivery, were there one

    expect(r.overlaps).toEqual([]);
    const ok = delivered();
    expect(ok).toHaveLength(150);
    expect(new Set(ok.map((a) => a.delivery)).size).toBe(150);
    for (let i = 0; i < hooks.length; i++) {
      // In event order per webhook, counting every attempt (a failed one is retried before the next).
      const attempts = r.arrivals.filter((a) => a.hook === i).map((a) => a.event);
      const expected = events.flatMap((e) => (e % 5 === 0 ? [e, e] : [e]));
      expect(attempts).toEqual(expected);
    }
    const rows = await main.db
      .selectFrom('webhook_deliveries')
      .select(['state', 'attempts', 'leaseUntil'])
      .where('webhook', 'in', hooks)
      .execute();
    expect(rows).toHaveLength(150);
    expect(rows.every((d) => d.state === 'delivered' && d.leaseUntil === null)).toBe(true);
    expect(rows.reduce((sum, d) => sum + d.attempts, 0)).toBe(150 + failedOnce.size);
  }, 60_000);

  it('passes over a delivery another transaction holds locked and delivers the other webhooks meanwhile', async () => {
    const r = await startReceiver();
    teardown.push(() => r.close());
    const { account: accountId, hooks } = await account(r.base, 3);
    const events: number[] = [];
    for (let n = 0; n < 3; n++) events.push(await emit(accountId, n));
    // The first webhook's head is the soonest due, so a claim that waited for it would hold up the rest.
    const head = await main.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook', '=', hooks[0])
      .orderBy('id')
      .executeTakeFirstOrThrow();
    await main.db
      .updateTable('webhook_deliveries')
      .set({ nextAttemptAt: new Date(Date.now() - 60_000).toISOString() })
      .where('id', '=', head.id)
      .execute();
    // Made before the lock is taken, so the teardown ends the holder (and its lock) first.
    const claimers = workers(2);
    const holder = new pg.Client({ connectionString: pgUrl, options: `-c search_path=${db.schema}` });
    await holder.connect();
    teardown.push(() => holder.end());
    await holder.query('begin');
    await holder.query('select id from webhook_deliveries where id = $1 for update', [head.id]);

    for (const w of claimers) w.start();
    await waitFor('the unlocked webhooks', () => r.arrivals.filter((a) => a.hook !== 0).length >= 6, 5_000);
    await sleep(200);
    expect(r.arrivals.filter((a) => a.hook === 0)).toEqual([]);

    await holder.query('commit');
    await waitFor(
      'the webhook that was locked',
      () => r.arrivals.filter((a) => a.hook === 0).length >= 3,
      5_000,
    );
    await sleep(200);
    expect(r.arrivals).toHaveLength(9);
    expect(r.overlaps).toEqual([]);
    for (const hook of [0, 1, 2]) {
      expect(r.arrivals.filter((a) => a.hook === hook).map((a) => a.event)).toEqual(events);
    }
  }, 30_000);

  it('sends a delivery leased by a hub that died only after its lease ends, and then once', async () => {
    const r = await startReceiver();
    teardown.push(() => r.close());
    const { account: accountId, hooks } = await account(r.base, 1);
    await emit(accountId, 0);
    await emit(accountId, 1);
    // A hub claimed the first delivery and was killed while sending it: its lease stays behind.
    const leaseEnds = Date.now() + 800;
    const [head, next] = await main.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook', '=', hooks[0])
      .orderBy('id')
      .execute();
    await main.db
      .updateTable('webhook_deliveries')
      .set({ leaseUntil: new Date(leaseEnds).toISOString() })
      .where('id', '=', head.id)
      .execute();

    for (const w of workers(2)) w.start();
    await waitFor('both deliveries', () => r.arrivals.length >= 2, 5_000);
    await sleep(200);
    expect(r.arrivals.map((a) => a.delivery)).toEqual([head.id, next.id]);
    // Not before the lease ended, and the second (not leased) did not jump the queue.
    expect(r.arrivals[0].at).toBeGreaterThanOrEqual(leaseEnds);
  }, 30_000);
});
