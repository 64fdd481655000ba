import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createStorage } from '../../hub/src/db/database.js';
import { knownMigrations, migrateToLatest } from '../../hub/src/db/migrate.js';
import { freshDatabase, type TestDatabase } from '../support/dialects.js';

const pgUrl = process.env.TEST_DATABASE_URL;

/**
 * Several hubs (or test runs) share one PostgreSQL database, each in a schema of its own. A hub
 * migrating its schema must not fail because another schema of the database is dropped at the
 * same moment: the migrator looks only at its own schema.
 */
describe.runIf(pgUrl)('migrating while other schemas of the database come and go [postgres]', () => {
  const made: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of made) await db.dispose();
  });

  it('migrates every time while another client creates and drops schemas with tables', async () => {
    const churn = new pg.Client({ connectionString: pgUrl });
    await churn.connect();
    let churning = true;
    let cycles = 0;
    const loop = (async () => {
      while (churning) {
        const schema = `churn_${randomBytes(5).toString('hex')}`;
        await churn.query(`CREATE SCHEMA ${schema}`);
        await churn.query(
          `CREATE TABLE ${schema}.a (id serial primary key, x text); CREATE TABLE ${schema}.b (id serial primary key)`,
        );
        await churn.query(`DROP SCHEMA ${schema} CASCADE`);
        cycles++;
      }
    })();
    try {
      for (let i = 0; i < 6; i++) {
        const db = await freshDatabase('postgres');
        made.push(db);
        const storage = createStorage({ url: db.url, schema: db.schema });
        try {
          const applied = await migrateToLatest(storage.db, 'postgres');
          expect(applied).toEqual(knownMigrations());
          // A second start finds its bookkeeping in its own schema and applies nothing.
          expect(await migrateToLatest(storage.db, 'postgres')).toEqual([]);
        } finally {
          await storage.db.destroy();
        }
      }
    } finally {
      churning = false;
      await loop;
      await churn.end();
    }
    expect(cycles).toBeGreaterThan(0);
  }, 120_000);
});
