import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

describeEachDialect('group commit of small writes', (dialect) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(dialect);
  });
  afterAll(async () => t?.close());

  const typeNamed = (name: string) =>
    t.hub.ctx.events.grouped(async (trx) => {
      const at = new Date().toISOString();
      const row = await trx
        .insertInto('resource_types')
        .values({ account: t.owner.accountId, name, createdAt: at, updatedAt: at, updatedBy: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (name.startsWith('bad')) throw new Error(`refused ${name}`);
      return row.id;
    });

  it('commits writes that arrive together, each with its own result', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => typeNamed(`type ${i}`)));
    expect(new Set(ids).size).toBe(20);
    const stored = await t.hub.ctx.db
      .selectFrom('resource_types')
      .select('id')
      .where('id', 'in', ids)
      .execute();
    expect(stored).toHaveLength(20);
  });

  it('fails only the write that fails; the others in its group are stored', async () => {
    const results = await Promise.allSettled(['good 1', 'bad 1', 'good 2'].map(typeNamed));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const names = (await t.hub.ctx.db.selectFrom('resource_types').select('name').execute()).map(
      (r) => r.name,
    );
    expect(names).toEqual(expect.arrayContaining(['good 1', 'good 2']));
    expect(names).not.toContain('bad 1');
  });
});
