import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectThrottle } from '../../hub/src/broker/connect-throttle.js';
import { AuthThrottle } from '../../hub/src/http/auth-throttle.js';
import { signInThrottles } from '../../hub/src/sign-in/throttle.js';
import { redisFailureWindows } from '../../hub/src/throttling/failure-windows.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.warn('SKIPPED shared lock-out counters: TEST_REDIS_URL not set (.ci/run sets it)');

/** Two hubs' throttles on one Redis (a key prefix of this test's own): a guesser meets one limit. */
(redisUrl ? describe : describe.skip)('lock-out counters shared through Redis', () => {
  let redis: Redis;
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  let now = Date.parse('2026-03-07T10:00:00Z');
  const clock = { now: () => new Date(now) };

  beforeAll(async () => {
    redis = new Redis(redisUrl as string);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('locks an address out on every hub once the failures at all hubs reach the limit', async () => {
    const settings = { limit: 4, windowMs: 60_000, maxAddresses: 100 };
    const [a, b] = ['hub-a', 'hub-b'].map(
      (node) => new AuthThrottle(clock, settings, redisFailureWindows(redis, prefix, node)),
    );
    await a.failed('2001:db8:7:7::1');
    await b.failed('2001:db8:7:7::2'); // the same /64
    await a.failed('2001:db8:7:7::3');
    expect(await b.retryAfter('2001:db8:7:7::9')).toBe(0);
    await b.failed('2001:db8:7:7::4');
    expect(await a.retryAfter('2001:db8:7:7::9')).toBe(60);
    expect(await b.retryAfter('2001:db8:7:7::9')).toBe(60);
    expect(await a.retryAfter('2001:db8:7:8::1')).toBe(0);
    now += 30_000;
    expect(await b.retryAfter('2001:db8:7:7::9')).toBe(30);
    now += 30_001;
    expect(await a.retryAfter('2001:db8:7:7::9')).toBe(0);
  });

  it('counts sign-in and sign-up events at every hub, and a reset at one hub counts at all', async () => {
    const [a, b] = ['hub-a', 'hub-b'].map((node) =>
      signInThrottles(clock, redisFailureWindows(redis, prefix, node)),
    );
    for (let i = 0; i < 4; i++) await (i % 2 ? a : b).loginPerEmail.hit('ada@example.org');
    expect(await a.loginPerEmail.retryAfter('ada@example.org')).toBe(0);
    await b.loginPerEmail.hit('ada@example.org');
    expect(await a.loginPerEmail.retryAfter('ada@example.org')).toBe(15 * 60);
    // Another kind of event keeps its own count.
    expect(await a.linksPerEmail.retryAfter('ada@example.org')).toBe(0);
    await b.loginPerEmail.reset('ada@example.org');
    expect(await a.loginPerEmail.retryAfter('ada@example.org')).toBe(0);

    for (let i = 0; i < 10; i++) await (i % 2 ? a : b).signUpsPerAddress.hit('192.0.2.9');
    expect(await a.signUpsPerAddress.retryAfter('192.0.2.9')).toBe(3600);
    expect(await b.signUpsPerAddress.retryAfter('192.0.2.10')).toBe(0);
  });

  it('counts failed MQTT logins for one resource from any hub', async () => {
    const settings = {
      limit: 100,
      resourceLimit: 3,
      windowMs: 60_000,
      knownAddressMs: 3600_000,
      maxEntries: 100,
    };
    const [a, b] = ['hub-a', 'hub-b'].map(
      (node) => new ConnectThrottle(clock, settings, redisFailureWindows(redis, prefix, node)),
    );
    expect(await a.failed('192.0.2.1', 41)).toBeNull();
    expect(await b.failed('192.0.2.2', 41)).toBeNull();
    expect(await a.failed('192.0.2.3', 41)).toEqual({ scope: 'resource', retryAfterSeconds: 60 });
    expect(await b.check('192.0.2.4', 41)).toEqual({ scope: 'resource', retryAfterSeconds: 60 });
    expect(await b.check('192.0.2.4', 42)).toBeNull();
  });
});
