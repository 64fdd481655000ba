import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  url: string;
  /** PostgreSQL schema that isolates this test's tables; dropped by dispose(). */
  schema?: string;
  dispose(): Promise<void>;
}

const pgUrl = process.env.TEST_DATABASE_URL;

/** A fresh, empty database of the given dialect. */
export async function freshDatabase(name: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (name === 'sqlite') return { name, url: ':memory:', dispose: async () => {} };
  if (!pgUrl) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  return {
    name,
    url: pgUrl,
    schema,
    async dispose() {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

/**
 * Runs a suite once per dialect: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 * Without it the PostgreSQL run shows up as a skipped suite that says why.
 */
export function describeEachDialect(title: string, suite: (dialect: 'sqlite' | 'postgres') => void): void {
  describe(`${title} [sqlite]`, () => suite('sqlite'));
  if (pgUrl) describe(`${title} [postgres]`, () => suite('postgres'));
  else describe.skip(`${title} [postgres] skipped: TEST_DATABASE_URL is not set`, () => suite('postgres'));
}
