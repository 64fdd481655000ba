import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../hub/src/broker/bridge-handlers.js';
import { createStorage } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrate.js';
import { openHub } from '../../hub/src/hub.js';
import { createAccountWithOwner } from '../../hub/src/identity/bootstrap.js';
import { loadSecret } from '../../hub/src/secrets.js';
import { testSettings } from '../support/hub.js';

const dirs: string[] = [];
const umask = process.umask();
afterEach(() => {
  process.umask(umask);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'hub-files-'));
  dirs.push(d);
  return d;
};
const mode = (f: string) => (statSync(f).mode & 0o777).toString(8);

describe('files of the data directory', () => {
  it('creates the directory 0700 and the database, its WAL and the key 0600 under any umask', async () => {
    process.umask(0);
    const dataDir = join(tempDir(), 'data');
    const file = join(dataDir, 'hub.sqlite');
    const storage = createStorage({ url: file });
    await migrateToLatest(storage.db, storage.dialect);
    loadSecret(join(dataDir, 'secret.key'));
    expect(mode(dataDir)).toBe('700');
    for (const f of [file, `${file}-wal`, `${file}-shm`, join(dataDir, 'secret.key')]) {
      expect(existsSync(f), f).toBe(true);
      expect(mode(f), f).toBe('600');
    }
    await storage.close();
  });

  it('tightens a database file an older hub left readable by others', async () => {
    const file = join(tempDir(), 'hub.sqlite');
    process.umask(0o022);
    const first = createStorage({ url: file });
    await migrateToLatest(first.db, first.dialect);
    await first.close();
    chmodSync(file, 0o644);
    const again = createStorage({ url: file });
    expect(mode(file)).toBe('600');
    await again.close();
  });

  it('the hub closes its data directory and checkpoints and truncates the WAL periodically', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const settings = { ...testSettings(join(dir, 'hub.sqlite')), dataDir: dir, walCheckpointMs: 100 };
    const hub = await openHub(settings, {
      secret: randomBytes(32),
      logger: createLogger({ name: 't', level: 'silent' }),
    });
    try {
      await createAccountWithOwner(hub.ctx.db, hub.ctx.tokens, {
        accountName: 'A',
        emailAddress: 'a@x.example',
      });
      expect(statSync(join(dir, 'hub.sqlite-wal')).size).toBeGreaterThan(0);
      await expect.poll(() => statSync(join(dir, 'hub.sqlite-wal')).size, { timeout: 5_000 }).toBe(0);
    } finally {
      await hub.close();
    }
  });
});

describe('a full disk', () => {
  it('is logged as such, with the operation that failed, and answers 503 over HTTP', async () => {
    const dir = tempDir();
    const lines: any[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const hub = await openHub(
      { ...testSettings(join(dir, 'hub.sqlite')), dataDir: dir },
      { secret: randomBytes(32), logger: createLogger({ name: 't', level: 'info', destination: sink }) },
    );
    try {
      const owner = await createAccountWithOwner(hub.ctx.db, hub.ctx.tokens, {
        accountName: 'A',
        emailAddress: 'a@x.example',
      });
      const resource = await hub.app.inject({
        method: 'POST',
        url: '/api/v1/resources',
        headers: { authorization: `Bearer ${owner.token}` },
        payload: { space: owner.spaceId, name: 'Door' },
      });
      const resourceId = resource.json().id;
      // The database may not grow any more: the next page it needs is "the disk is full".
      const sqlite = hub.ctx.storage.sqlite as any;
      sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true })}`);
      const big = 'x'.repeat(1900);
      const items = Array.from({ length: 200 }, () => ({
        kind: 'log' as const,
        id: randomUUID(),
        type: 'allowed' as const,
        createdAt: new Date().toISOString(),
        notes: big,
      }));
      const handlers = createHandlers(hub.ctx, hub.broker);
      handlers.handle(resourceId, 'logs', { items } as any);
      await handlers.settle();
      const full = lines.find((l) => /disk is full/.test(l.msg));
      expect(full?.msg).toMatch(/handling the bridge's logs message failed/);
      expect(full.err.code).toBe('SQLITE_FULL');
      expect(lines.some((l) => /cannot rollback/.test(JSON.stringify(l)))).toBe(false);
      const count = await hub.ctx.db
        .selectFrom('resource_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(0);

      // Over HTTP: writes succeed while the last page has room, then answer 503.
      let res = await hub.app.inject({ url: '/health' });
      for (let i = 0; i < 200 && res.statusCode !== 503; i++) {
        res = await hub.app.inject({
          method: 'POST',
          url: '/api/v1/resource-types',
          headers: { authorization: `Bearer ${owner.token}` },
          payload: { name: `${i}${'y'.repeat(190)}` },
        });
        if (res.statusCode !== 503) expect(res.statusCode).toBe(201);
      }
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
      expect(lines.some((l) => /disk is full: POST \/api\/v1\/resource-types failed/.test(l.msg))).toBe(true);
    } finally {
      await hub.close();
    }
  });
});
