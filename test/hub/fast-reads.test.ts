import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../hub/src/db/database.js';
import { numberedPlaceholders } from '../../hub/src/db/fast-reads.js';
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
    await db.dispose();
  });
});

describe('numbered placeholders', () => {
  it('turns ? into $1, $2, ... in order', () => {
    expect(numberedPlaceholders('a = ? and b in (?, ?)')).toBe('a = $1 and b in ($2, $3)');
  });
});
