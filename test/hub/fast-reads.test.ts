import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../hub/src/db/database.js';
import { numberedPlaceholders } from '../../hub/src/db/fast-reads.js';
import { ReadMemo } from '../../hub/src/db/read-memo.js';
import { migrateToLatest } from '../../hub/src/db/migrate.js';
import { describeEachDialect, freshDatabase } from '../support/dialects.js';
import { tempDir } from '../support/processes.js';

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function account(storage: Storage, name: string) {
  const at = new Date().toISOString();
  const account = await storage.db
    .insertInto('accounts')
    .values({ name, createdAt: at, updatedAt: at } as any)
    .returning('id')
    .executeTakeFirstOrThrow();
  return account.id;
}

describe('fast reads on a SQLite file', () => {
  it('see committed data only: a transaction in progress stays invisible until it commits', async () => {
    const storage = createStorage({ url: join(tempDir('fast-reads-'), 'hub.sqlite') });
    opened.push(storage);
    await migrateToLatest(storage.db, storage.dialect);
    const before = await account(storage, 'First');

    let commit = () => {};
    const held = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let inserted = 0;
    const writer = storage.db.transaction().execute(async (trx) => {
      const at = new Date().toISOString();
      const row = await trx
        .insertInto('accounts')
        .values({ name: 'Second', createdAt: at, updatedAt: at } as any)
        .returning('id')
        .executeTakeFirstOrThrow();
      inserted = row.id;
      await held;
    });
    while (inserted === 0) await new Promise((r) => setTimeout(r, 5));

    const select = 'select "id", "name" from "accounts" where "id" = ?';
    // The writer's connection is busy with its transaction; the fast read does not wait for it
    // and does not see its uncommitted row.
    expect(await storage.reads.first(select, [before])).toEqual({ id: before, name: 'First' });
    expect(await storage.reads.first(select, [inserted])).toBeUndefined();
    commit();
    await writer;
    expect(await storage.reads.first(select, [inserted])).toEqual({ id: inserted, name: 'Second' });
    expect(
      await storage.reads.tuples('select "id", "name" from "accounts" where "id" in (?, ?) order by "id"', [
        before,
        inserted,
      ]),
    ).toEqual([
      [before, 'First'],
      [inserted, 'Second'],
    ]);
  });
});

/** Renames an account from another process, as the hub's CLI writes the same file. */
function renameElsewhere(file: string, id: number, name: string) {
  const script = `const S = require('better-sqlite3'); const db = new S(process.argv[1]);
db.pragma('busy_timeout = 5000');
db.prepare('update "accounts" set "name" = ? where "id" = ?').run(process.argv[2], Number(process.argv[3]));
db.close();`;
  const run = spawnSync(process.execPath, ['-e', script, file, name, String(id)], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
}

/** A migrated SQLite file with one account. */
async function fileWithAccount(name: string) {
  const file = join(tempDir('commit-stamp-'), 'hub.sqlite');
  const storage = createStorage({ url: file });
  opened.push(storage);
  await migrateToLatest(storage.db, storage.dialect);
  return { file, storage, id: await account(storage, name) };
}

describe('the commit stamp of a SQLite file', () => {
  it('stays while nothing commits and changes with each commit, of this process or another', async () => {
    const { file, storage, id } = await fileWithAccount('First');
    const stamp = () => storage.reads.commitStamp?.();

    const first = stamp();
    expect(first).toBeTypeOf('number');
    await storage.reads.first('select "name" from "accounts" where "id" = ?', [id]);
    expect(stamp()).toBe(first);

    // A transaction in progress changes nothing yet; its commit does.
    let commit = () => {};
    const held = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let written = false;
    const writer = storage.db.transaction().execute(async (trx) => {
      await trx.updateTable('accounts').set({ name: 'Second' }).where('id', '=', id).execute();
      written = true;
      await held;
    });
    while (!written) await new Promise((r) => setTimeout(r, 5));
    expect(stamp()).toBe(first);
    commit();
    await writer;
    const second = stamp();
    expect(second).not.toBe(first);
    expect(stamp()).toBe(second);

    renameElsewhere(file, id, 'Third');
    expect(stamp()).not.toBe(second);
  });

  it("keeps a memo's answers until a commit, also another process's", async () => {
    const { file, storage, id } = await fileWithAccount('First');
    let reads = 0;
    const memo = new ReadMemo(storage.reads, async (r, key: number) => {
      reads++;
      return (await r.first<{ name: string }>('select "name" from "accounts" where "id" = ?', [key]))?.name;
    });
    expect(memo.peek(id, 'not kept')).toBe('not kept');
    expect(await memo.get(id)).toBe('First');
    expect(memo.peek(id, 'not kept')).toBe('First');
    expect(await memo.get(id)).toBe('First');
    expect(await memo.get(id + 1)).toBeUndefined();
    expect(memo.peek(id + 1, 'not kept')).toBeUndefined();
    expect(await memo.get(id + 1)).toBeUndefined();
    expect(reads).toBe(2);

    await storage.db.updateTable('accounts').set({ name: 'Second' }).where('id', '=', id).execute();
    expect(memo.peek(id, 'not kept')).toBe('not kept');
    expect(await memo.get(id)).toBe('Second');
    renameElsewhere(file, id, 'Third');
    expect(await memo.get(id)).toBe('Third');
    expect(await memo.get(id)).toBe('Third');
    expect(reads).toBe(4);
  });
});

describeEachDialect('fast reads', (dialect) => {
  it('run the same SQL text on the dialect and answer rows and first rows', async () => {
    const db = await freshDatabase(dialect);
    const storage = createStorage({ url: db.url, schema: db.schema });
    opened.push(storage);
    await migrateToLatest(storage.db, storage.dialect);
    const a = await account(storage, 'Alpha');
    const b = await account(storage, 'Beta');
    const rows = await storage.reads.rows<{ name: string }>(
      'select "name" from "accounts" where "id" in (?, ?) and "name" <> ? order by "id"',
      [a, b, 'Gamma'],
    );
    expect(rows).toEqual([{ name: 'Alpha' }, { name: 'Beta' }]);
    const tuples = await storage.reads.tuples<[number, string]>(
      'select "id", "name" from "accounts" where "id" in (?, ?) order by "id" desc',
      [a, b],
    );
    expect(tuples).toEqual([
      [b, 'Beta'],
      [a, 'Alpha'],
    ]);
    expect(
      await storage.reads.first('select "name" from "accounts" where "id" = ?', [b + 100]),
    ).toBeUndefined();
    // Only a SQLite file has a commit stamp; elsewhere a memo reads every time.
    if (dialect === 'postgres') expect(storage.reads.commitStamp?.()).toBeUndefined();
    await db.dispose();
  });
});

describe('numbered placeholders', () => {
  it('turns ? into $1, $2, ... in order', () => {
    expect(numberedPlaceholders('a = ? and b in (?, ?)')).toBe('a = $1 and b in ($2, $3)');
  });
});
