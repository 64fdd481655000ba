import { afterEach, describe, expect, it } from 'vitest';
import { AuthThrottle } from '../../hub/src/http/auth-throttle.js';
import { startTestHub, type TestHub } from '../support/hub.js';

const hubs: TestHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
});

function settableClock(start = Date.parse('2026-03-07T10:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('failed authentication is throttled per source address', () => {
  it('answers 429 with the real remaining time once an address has guessed too often', async () => {
    const clock = settableClock();
    const t = await startTestHub('sqlite', {
      clock,
      settings: { authThrottle: { limit: 5, windowMs: 60_000 } },
    });
    hubs.push(t);
    const get = (token: string, remoteAddress = '203.0.113.7') =>
      t.app.inject({ url: '/api/v1/user/me', headers: { authorization: `Bearer ${token}` }, remoteAddress });

    for (let i = 0; i < 5; i++) {
      expect((await get(`wrong-${i}`)).statusCode).toBe(401);
      clock.advance(1_000);
    }
    // The sixth wrong try is refused with the real wait.
    const blocked = await get('wrong-5');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    // The first failure was 5 s ago: it leaves the 60 s window in 55 s.
    expect(blocked.headers['retry-after']).toBe('55');
    // A right token (122 random bits, never a guess) is not refused for the failures of others
    // behind the same address, e.g. a shared NAT.
    const right = await get(t.owner.token);
    expect(right.statusCode).toBe(200);
    expect(right.json().id).toBeGreaterThan(0);
    expect((await get('wrong-again')).statusCode).toBe(429);

    // Other addresses are not affected.
    expect((await get('wrong-elsewhere', '198.51.100.1')).statusCode).toBe(401);

    clock.advance(30_000);
    expect((await get('x')).headers['retry-after']).toBe('25');
    expect((await get(t.owner.token)).statusCode).toBe(200);
    clock.advance(25_000);
    // The oldest failure has left the window: one more wrong try gets its 401, and it counts.
    expect((await get('wrong')).statusCode).toBe(401);
    expect((await get('wrong')).statusCode).toBe(429);
    expect((await get(t.owner.token)).statusCode).toBe(200);
  });

  it('lets ten valid API tokens through from an address where ten wrong ones were tried', async () => {
    const t = await startTestHub('sqlite');
    hubs.push(t);
    const nat = '203.0.113.50';
    const get = (token: string) =>
      t.app.inject({
        url: '/api/v1/user/me',
        headers: { authorization: `Bearer ${token}` },
        remoteAddress: nat,
      });
    for (let i = 0; i < 10; i++) expect((await get(crypto.randomUUID())).statusCode).toBe(401);
    expect((await get(crypto.randomUUID())).statusCode).toBe(429);
    const member = await t.newMemberWithToken('Door', 'Reader');
    for (const token of [t.owner.token, member.token]) {
      const basic = Buffer.from(`${token}:`).toString('base64');
      expect((await get(token)).statusCode).toBe(200);
      const res = await t.app.inject({
        url: '/api/v1/members',
        headers: { authorization: `Basic ${basic}` },
        remoteAddress: nat,
      });
      expect(res.statusCode).toBe(200);
    }
  });

  it('counts wrong bridge keys on the HTTP bridge API too, and not requests without credentials', async () => {
    const clock = settableClock();
    const t = await startTestHub('sqlite', {
      clock,
      settings: { authThrottle: { limit: 3, windowMs: 60_000 } },
    });
    hubs.push(t);
    for (let i = 0; i < 10; i++) {
      expect((await t.app.inject({ url: '/api/v1/members' })).statusCode).toBe(401);
    }
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/bridge/heartbeat',
        headers: { authorization: `Bearer not-a-bridge-key-${i}` },
        payload: {},
      });
      expect(res.statusCode).toBe(401);
    }
    const res = await t.call('not-a-token', { url: '/api/v1/user/me' });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBe(60);
    expect((await t.call(t.owner.token, { url: '/api/v1/user/me' })).statusCode).toBe(200);
  });

  it('counts an IPv6 client per /64 and forgets the oldest addresses beyond its limit', async () => {
    const clock = settableClock();
    const throttle = new AuthThrottle(clock, { limit: 2, windowMs: 10_000, maxAddresses: 3 });
    await throttle.failed('2001:db8:1:2::1');
    await throttle.failed('2001:db8:1:2:ffff::9');
    expect(await throttle.retryAfter('2001:db8:1:2::abcd')).toBe(10);
    expect(await throttle.retryAfter('2001:db8:1:3::1')).toBe(0);
    for (const a of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) await throttle.failed(a);
    expect(await throttle.retryAfter('2001:db8:1:2::1')).toBe(0);
  });
});
