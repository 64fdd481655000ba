import { Backoff } from '@makerspace/agent';
import { describe, expect, it } from 'vitest';

describe('reconnect backoff', () => {
  it('doubles from 0.5 s to 30 s, each delay in the upper half of its step', () => {
    const low = new Backoff({ initialMs: 500, maxMs: 30_000, random: () => 0 });
    const high = new Backoff({ initialMs: 500, maxMs: 30_000, random: () => 0.999999 });
    const lows = Array.from({ length: 9 }, () => low.next());
    const highs = Array.from({ length: 9 }, () => high.next());
    expect(lows).toEqual([250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
    expect(highs).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('starts over after reset (a successful connect)', () => {
    const backoff = new Backoff({ initialMs: 500, maxMs: 30_000, random: () => 0 });
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(250);
  });

  it('spreads bridges reconnecting at the same step', () => {
    let seed = 1;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const delays = new Set(
      Array.from({ length: 20 }, () => new Backoff({ initialMs: 500, maxMs: 30_000, random }).next()),
    );
    expect(delays.size).toBeGreaterThan(10);
  });
});
