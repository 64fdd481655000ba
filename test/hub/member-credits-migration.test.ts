import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createStorage } from '../../hub/src/db/database.js';
import { migrateToLatest, migrations } from '../../hub/src/db/migrate.js';

/**
 * Migration 0013 lets a member credit have no member package (credits given by hand). On SQLite
 * that rebuilds the table: the credits and the uses recorded against them must survive it, and
 * foreign keys must hold afterwards.
 */
describe('migration 0013 on SQLite', () => {
  it('keeps existing credits and their uses, and lets credits be given by hand', async () => {
    const storage = createStorage({ url: ':memory:' });
    const db = storage.db as any;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations('sqlite') } });
    const before = await migrator.migrateTo('0011-bridge-duplicates');
    expect(before.error).toBeUndefined();
    const at = '2026-03-04T10:00:00.000Z';
    const stamps = { createdAt: at, updatedAt: at, updatedBy: null };
    const insert = async (table: string, values: Record<string, unknown>) =>
      (await db.insertInto(table).values(values).returning('id').executeTakeFirstOrThrow()).id as number;
    const account = await insert('accounts', { name: 'Old space', ...stamps });
    const space = await insert('spaces', { account, name: 'Main', ...stamps });
    const member = await insert('members', { account, space, firstName: 'Ada', lastName: 'L', ...stamps });
    const pkg = await insert('packages', { account, name: 'Basic', ...stamps });
    const memberPackage = await insert('member_packages', {
      account,
      member,
      package: pkg,
      fromDate: '2026-03-01',
      ...stamps,
    });
    const packageCredit = await insert('package_credits', { account, package: pkg, ...stamps });
    const credit = await insert('member_credits', {
      account,
      member,
      memberPackage,
      packageCredit,
      scope: 'global',
      amount: '10.00',
      remaining: '4.00',
      fromDate: '2026-03-01',
      ...stamps,
    });
    await insert('credit_uses', { account, member, memberCredit: credit, amount: '6.00', createdAt: at });

    expect(await migrateToLatest(storage.db, storage.dialect)).toContain('0013-member-subresources');

    expect(await db.selectFrom('member_credits').selectAll().execute()).toEqual([
      expect.objectContaining({ id: credit, memberPackage, packageCredit, remaining: '4.00', notes: null }),
    ]);
    expect(await db.selectFrom('credit_uses').select(['memberCredit', 'amount']).execute()).toEqual([
      { memberCredit: credit, amount: '6.00' },
    ]);
    const byHand = await insert('member_credits', {
      account,
      member,
      scope: 'global',
      amount: '5.00',
      remaining: '5.00',
      fromDate: '2026-03-04',
      notes: 'By hand',
      ...stamps,
    });
    expect(byHand).toBeGreaterThan(credit);
    // Foreign keys are on again: a use of a credit that does not exist is refused, and deleting
    // a credit takes its uses along.
    expect((await sql`pragma foreign_keys`.execute(db)).rows).toEqual([{ foreign_keys: 1 }]);
    await expect(
      insert('credit_uses', { account, member, memberCredit: 9999, amount: '1.00', createdAt: at }),
    ).rejects.toThrow();
    await db.deleteFrom('member_credits').where('id', '=', credit).execute();
    expect(await db.selectFrom('credit_uses').selectAll().execute()).toEqual([]);
    await storage.close();
  });
});
