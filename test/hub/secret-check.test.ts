import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@makerspace/shared';
import { afterEach, expect, it } from 'vitest';
import { type Hub, openHub } from '../../hub/src/hub.js';
import { createAccountWithOwner } from '../../hub/src/identity/bootstrap.js';
import { SecretKeyMismatch } from '../../hub/src/secrets.js';
import { startupFailure } from '../../hub/src/startup.js';
import { describeEachDialect, freshDatabase } from '../support/dialects.js';
import { testSettings } from '../support/hub.js';

/** Issue 34 point 7: a hub with another secret key than its database's refuses to start. */
describeEachDialect('the secret key is checked against the database at start', (dialect) => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function database() {
    const db = await freshDatabase(dialect);
    cleanup.push(() => db.dispose());
    if (dialect === 'postgres') return db;
    const dir = mkdtempSync(join(tmpdir(), 'key-check-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    return { ...db, url: join(dir, 'hub.sqlite') };
  }
  const open = async (db: { url: string; schema?: string }, secret: Buffer): Promise<Hub> => {
    const hub = await openHub(
      { ...testSettings(db.url), secretFile: '/etc/makerspace/other.key' },
      { schema: db.schema, secret, logger: createLogger({ name: 'test-hub', level: 'silent' }) },
    );
    cleanup.push(() => hub.close());
    return hub;
  };

  it('stores a check value at first start and refuses another key with one line naming HUB_SECRET_FILE', async () => {
    const db = await database();
    const key = randomBytes(32);
    const first = await open(db, key);
    const owner = await createAccountWithOwner(first.ctx.db, first.ctx.tokens, {
      accountName: 'Space',
      emailAddress: 'owner@key.example',
    });
    const check = await first.ctx.db.selectFrom('hub_meta').selectAll().execute();
    expect(check).toEqual([{ name: 'keyCheck', value: expect.any(String) }]);
    expect(check[0].value).not.toContain(key.toString('hex'));
    await first.close();

    const refused = open(db, randomBytes(32));
    await expect(refused).rejects.toBeInstanceOf(SecretKeyMismatch);
    const line = startupFailure(await refused.catch((e) => e), null);
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/HUB_SECRET_FILE \(\/etc\/makerspace\/other\.key\) is not the secret key/);

    // The right key still starts, and its token works.
    const again = await open(db, key);
    const me = await again.app.inject({
      url: '/api/v1/user/me',
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(me.statusCode).toBe(200);
  });

  it('a database from before the check: a key that opens its tokens stores it, another is refused', async () => {
    const db = await database();
    const key = randomBytes(32);
    const first = await open(db, key);
    await createAccountWithOwner(first.ctx.db, first.ctx.tokens, {
      accountName: 'Space',
      emailAddress: 'owner@key.example',
    });
    // As written by a hub before the check value existed.
    await first.ctx.db.deleteFrom('hub_meta').execute();
    await first.close();

    await expect(open(db, randomBytes(32))).rejects.toBeInstanceOf(SecretKeyMismatch);
    const right = await open(db, key);
    expect(await right.ctx.db.selectFrom('hub_meta').select('name').execute()).toEqual([
      { name: 'keyCheck' },
    ]);
    await right.close();
    await expect(open(db, randomBytes(32))).rejects.toBeInstanceOf(SecretKeyMismatch);
  });
});
