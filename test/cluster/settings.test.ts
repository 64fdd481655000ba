import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { settingsFromEnv } from '../../hub/src/settings.js';
import { hubCli, runProcess, stopAll, tempDir } from '../support/processes.js';
import { describeCluster, freePort } from './support.js';

afterAll(stopAll);

/** Cluster mode needs PostgreSQL, Redis and a node id together; anything less says what is missing. */
describe('cluster mode settings', () => {
  const pg = 'postgres://hub@127.0.0.1/hub';

  it('stays one process without HUB_REDIS_URL', () => {
    expect(settingsFromEnv({ DATABASE_URL: pg }).cluster).toBeUndefined();
    expect(settingsFromEnv({}).cluster).toBeUndefined();
  });

  it('switches on with PostgreSQL, Redis and a node id', () => {
    const s = settingsFromEnv({
      DATABASE_URL: pg,
      HUB_REDIS_URL: 'redis://127.0.0.1:6379',
      HUB_NODE_ID: 'hub-1',
    });
    expect(s.cluster).toEqual({
      redisUrl: 'redis://127.0.0.1:6379',
      nodeId: 'hub-1',
      heartbeatMs: 1_000,
      nodeTtlMs: 3_000,
      sweepMs: 1_000,
    });
  });

  it('takes the liveness timing from HUB_NODE_HEARTBEAT_MS, HUB_NODE_TTL_MS and HUB_NODE_SWEEP_MS', () => {
    const s = settingsFromEnv({
      DATABASE_URL: pg,
      HUB_REDIS_URL: 'redis://127.0.0.1:6379',
      HUB_NODE_ID: 'hub-1',
      HUB_NODE_HEARTBEAT_MS: '500',
      HUB_NODE_TTL_MS: '2000',
      HUB_NODE_SWEEP_MS: '250',
    });
    expect(s.cluster).toMatchObject({ heartbeatMs: 500, nodeTtlMs: 2_000, sweepMs: 250 });
  });

  it.each([
    [{ HUB_REDIS_URL: 'redis://127.0.0.1:6379', HUB_NODE_ID: 'hub-1' }, /DATABASE_URL.*PostgreSQL/],
    [{ DATABASE_URL: pg, HUB_REDIS_URL: 'redis://127.0.0.1:6379' }, /HUB_NODE_ID/],
    [{ DATABASE_URL: pg, HUB_NODE_ID: 'hub-1' }, /HUB_REDIS_URL/],
    [
      { DATABASE_URL: pg, HUB_REDIS_URL: 'http://127.0.0.1:6379', HUB_NODE_ID: 'hub-1' },
      /HUB_REDIS_URL.*redis:\/\//,
    ],
    [{ DATABASE_URL: pg, HUB_REDIS_URL: 'redis://127.0.0.1:6379', HUB_NODE_ID: 'hub 1' }, /HUB_NODE_ID/],
    [
      { HUB_NODE_TTL_MS: '2500' },
      /HUB_NODE_TTL_MS: must cover at least 3 heartbeats \(3 x HUB_NODE_HEARTBEAT_MS = 3000 ms\)/,
    ],
    [
      { HUB_NODE_HEARTBEAT_MS: '2000', HUB_NODE_TTL_MS: '5000' },
      /HUB_NODE_TTL_MS: must cover at least 3 heartbeats/,
    ],
    [{ HUB_NODE_SWEEP_MS: '1s' }, /HUB_NODE_SWEEP_MS: a whole number of milliseconds/],
    [{ HUB_NODE_HEARTBEAT_MS: '1.5' }, /HUB_NODE_HEARTBEAT_MS: a whole number of milliseconds/],
    [{ HUB_NODE_SWEEP_MS: '10' }, /HUB_NODE_SWEEP_MS: at least 100 \(milliseconds\)/],
  ])('refuses %o', (env, message) => {
    expect(() => settingsFromEnv(env)).toThrow(message);
  });
});

describeCluster('cluster mode start-up', () => {
  it('fails in one line, naming Redis, when HUB_REDIS_URL does not answer', async () => {
    const schema = `c_${randomBytes(6).toString('hex')}`;
    const pgUrl = process.env.TEST_DATABASE_URL as string;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    try {
      const url = new URL(pgUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const closedPort = await freePort();
      const started = Date.now();
      const res = await runProcess([hubCli, 'serve'], {
        HUB_DATA_DIR: tempDir('hub-'),
        HUB_HTTP_HOST: '127.0.0.1',
        HUB_HTTP_PORT: '0',
        HUB_MQTT_PORT: '0',
        DATABASE_URL: url.toString(),
        HUB_REDIS_URL: `redis://127.0.0.1:${closedPort}`,
        HUB_NODE_ID: 'hub-1',
      });
      expect(res.code).not.toBe(0);
      expect(res.stderr).toMatch(/cannot start: cannot reach Redis at HUB_REDIS_URL: connect ECONNREFUSED/);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    }
  }, 30_000);
});
