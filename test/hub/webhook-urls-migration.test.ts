import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { createStorage } from '../../hub/src/db/database.js';
import { hubMigrator, migrateToLatest } from '../../hub/src/db/migrate.js';
import { createAccountWithOwner } from '../../hub/src/identity/bootstrap.js';
import { TokenBox } from '../../hub/src/secrets.js';
import { describeEachDialect, freshDatabase, type TestDatabase } from '../support/dialects.js';
import { openWebhookHub } from './webhooks-helpers.js';

/** Migration 0016 seals the webhook URLs stored in clear before it. */
describeEachDialect('migration 0016: webhook URLs sealed at rest', (dialect) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** A database at migration 0015 with one account and a webhook whose URL carries a secret. */
  async function oldDatabase(secret: Buffer, url: string) {
    const db: TestDatabase = await freshDatabase(dialect);
    cleanup.push(() => db.dispose());
    const storage = createStorage({ url: dialect === 'sqlite' ? ':memory:' : db.url, schema: db.schema });
    const kdb = storage.db as any;
    const migrator = await hubMigrator(kdb, dialect);
    expect((await migrator.migrateTo('0015-training-trainer')).error).toBeUndefined();
    const owner = await createAccountWithOwner(storage.db, new TokenBox(secret), {
      accountName: 'Old space',
      emailAddress: 'owner@old.example',
    });
    const at = '2026-03-04T10:00:00.000Z';
    await kdb
      .insertInto('webhooks')
      .values({
        account: owner.accountId,
        url,
        label: 'Old hook',
        categories: '["member"]',
        secretEncrypted: new TokenBox(secret).seal('whsec_x'),
        createdAt: at,
        updatedAt: at,
      })
      .execute();
    return { db, storage, owner };
  }

  it('refuses to seal stored URLs without the hub secret, changing nothing', async () => {
    const { storage } = await oldDatabase(randomBytes(32), 'https://hooks.example/in?secret=abc');
    cleanup.push(() => storage.close());
    await expect(migrateToLatest(storage.db, dialect)).rejects.toThrow(/HUB_SECRET_FILE/);
    const row = await (storage.db as any).selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
    expect(row.url).toBe('https://hooks.example/in?secret=abc');
    // Run again with the secret, it goes through.
    expect(await migrateToLatest(storage.db, dialect, () => new TokenBox(randomBytes(32)))).toContain(
      '0016-webhook-urls-sealed',
    );
  });

  it('seals existing URLs with the hub secret; admins still list them in full', async () => {
    // SQLite in memory lives as long as its connection: this case migrates on the same storage.
    const secret = randomBytes(32);
    const url = 'https://Hooks.Example/in?secret=abc123';
    const { db, storage, owner } = await oldDatabase(secret, url);
    if (dialect === 'sqlite') {
      cleanup.push(() => storage.close());
      expect(await migrateToLatest(storage.db, dialect, () => new TokenBox(secret))).toContain(
        '0016-webhook-urls-sealed',
      );
      const row = await (storage.db as any).selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
      expect(row).not.toHaveProperty('url');
      expect(JSON.stringify(row)).not.toContain('abc123');
      expect(row.urlHost).toBe('hooks.example');
      expect(new TokenBox(secret).open(row.urlEncrypted)).toBe(url);
      return;
    }
    await storage.close();
    // A hub started on it migrates with its secret.
    const t = await openWebhookHub(db, secret, undefined, owner);
    cleanup.push(() => t.close());
    const row = await t.hub.ctx.db.selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('abc123');
    expect(row.urlHost).toBe('hooks.example');
    const list = await t.call(owner.token, { method: 'GET', url: '/api/v1/webhooks' });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([expect.objectContaining({ label: 'Old hook', url })]);
  });
});
