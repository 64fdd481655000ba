import { describe, expect, it } from 'vitest';
import { settingsFromEnv } from '../../hub/src/settings.js';

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
    expect(s.cluster).toEqual({ redisUrl: 'redis://127.0.0.1:6379', nodeId: 'hub-1' });
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
  ])('refuses %o', (env, message) => {
    expect(() => settingsFromEnv(env)).toThrow(message);
  });
});
