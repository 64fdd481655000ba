import { isIPv6 } from 'node:net';
import type { Redis } from 'ioredis';
import { ipv6Groups } from './ip-address.js';

/**
 * Failure counting shared by the HTTP token throttle (http/auth-throttle.ts) and the MQTT
 * connect throttle (broker/connect-throttle.ts): the newest `keep` failure times per key within
 * a sliding window, in this process's memory (one hub) or in Redis (cluster mode, so every hub
 * counts the same failures).
 */
export interface FailureWindows {
  /** Ms until `key` has fewer than `keep` failures in the window (0: it may try now). */
  waitMs(key: string, now: number): Promise<number>;
  /** Counts a failure; true when this one reached the limit (a lock-out begins). */
  add(key: string, now: number): Promise<boolean>;
  /** Forgets the failures of `key` (a success that starts it afresh). */
  clear(key: string): Promise<void>;
}

/** Makes the windows of one kind of failure (`name` keeps kinds apart in Redis). */
export type FailureWindowsFactory = (
  name: string,
  windowMs: number,
  keep: number,
  maxEntries: number,
) => FailureWindows;

/** IPv4 (also IPv4-mapped IPv6) as it is; IPv6 by its /64, which one host usually owns whole. */
export function addressKey(address: string): string {
  const plain = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  const groups = isIPv6(plain) ? ipv6Groups(plain) : null;
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(':')}::/64`
    : plain;
}

/** Failure times per key, newest `keep` only, least recently failed first (a bounded LRU). */
export class MemoryFailureWindows implements FailureWindows {
  private readonly times = new Map<string, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly keep: number,
    private readonly maxEntries: number,
  ) {}

  async waitMs(key: string, now: number): Promise<number> {
    return this.waitNow(key, now);
  }

  waitNow(key: string, now: number): number {
    const recent = this.recent(key, now);
    return recent.length < this.keep ? 0 : recent[recent.length - this.keep] + this.windowMs - now;
  }

  async add(key: string, now: number): Promise<boolean> {
    return this.addNow(key, now);
  }

  addNow(key: string, now: number): boolean {
    const recent = [...this.recent(key, now), now].slice(-this.keep);
    this.times.delete(key);
    this.times.set(key, recent);
    if (this.times.size > this.maxEntries) this.times.delete(this.times.keys().next().value as string);
    return recent.length === this.keep;
  }

  async clear(key: string): Promise<void> {
    this.times.delete(key);
  }

  private recent(key: string, now: number): number[] {
    const times = this.times.get(key);
    if (!times) return [];
    const kept = times.filter((t) => t > now - this.windowMs);
    if (kept.length === 0) this.times.delete(key);
    else if (kept.length !== times.length) this.times.set(key, kept);
    return kept;
  }
}

export const memoryFailureWindows: FailureWindowsFactory = (_name, windowMs, keep, maxEntries) =>
  new MemoryFailureWindows(windowMs, keep, maxEntries);

// One sorted set per key: scores are failure times; older than the window or beyond `keep` go.
const ADD = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
local n = redis.call('ZCARD', KEYS[1])
local keep = tonumber(ARGV[3])
if n > keep then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - keep - 1) n = keep end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n`;
const WAIT = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local n = redis.call('ZCARD', KEYS[1])
local keep = tonumber(ARGV[3])
if n < keep then return 0 end
local oldest = redis.call('ZRANGE', KEYS[1], n - keep, n - keep, 'WITHSCORES')
return tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1])`;

let sequence = 0;

/**
 * Cluster mode: the windows in Redis, so a guesser meets the same limit at every hub. While
 * Redis is away each hub counts in its own memory again (still limited, per hub), rather than
 * refusing every login or letting every guess through.
 */
export function redisFailureWindows(redis: Redis, prefix: string, node: string): FailureWindowsFactory {
  return (name, windowMs, keep, maxEntries) => {
    const fallback = new MemoryFailureWindows(windowMs, keep, maxEntries);
    const key = (k: string) => `${prefix}fail:${name}:${k}`;
    return {
      async waitMs(k, now) {
        try {
          return Number(await redis.eval(WAIT, 1, key(k), now, windowMs, keep));
        } catch {
          return fallback.waitNow(k, now);
        }
      },
      async add(k, now) {
        const member = `${now}:${node}:${++sequence}`;
        try {
          return Number(await redis.eval(ADD, 1, key(k), now, windowMs, keep, member)) === keep;
        } catch {
          return fallback.addNow(k, now);
        }
      },
      async clear(k) {
        await fallback.clear(k);
        await redis.del(key(k)).catch(() => {});
      },
    };
  };
}
