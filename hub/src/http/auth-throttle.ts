import { isIPv6 } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../context.js';
import { HttpError } from '../errors.js';
import { ipv6Groups } from '../webhooks/url-safety.js';

export interface AuthThrottleSettings {
  /** Failed authentications an address may have within `windowMs`. */
  limit: number;
  windowMs: number;
  /** Addresses remembered at most (the oldest are forgotten first). */
  maxAddresses: number;
}

export const defaultAuthThrottle: AuthThrottleSettings = {
  limit: 10,
  windowMs: 60_000,
  maxAddresses: 50_000,
};

/**
 * Counts failed authentications (a wrong API token or bridge key) per source address. Once an
 * address has `limit` failures within `windowMs`, every request from it that carries credentials
 * is answered 429 until its oldest failure leaves the window; `Retry-After` says exactly when.
 * IPv6 clients are counted per /64 (one host usually owns the whole prefix). Kept in this
 * process's memory: several hub processes each allow `limit`.
 */
export class AuthThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly settings: AuthThrottleSettings = defaultAuthThrottle,
  ) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  retryAfter(address: string): number {
    const times = this.recent(keyOf(address));
    if (times.length < this.settings.limit) return 0;
    const until = times[times.length - this.settings.limit] + this.settings.windowMs;
    return Math.max(1, Math.ceil((until - this.clock.now().getTime()) / 1000));
  }

  failed(address: string): void {
    const key = keyOf(address);
    const times = this.recent(key);
    times.push(this.clock.now().getTime());
    // Only the newest `limit` matter; re-inserting keeps the map in least-recent order.
    this.failures.delete(key);
    this.failures.set(key, times.slice(-this.settings.limit));
    if (this.failures.size > this.settings.maxAddresses) {
      this.failures.delete(this.failures.keys().next().value as string);
    }
  }

  private recent(key: string): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const since = this.clock.now().getTime() - this.settings.windowMs;
    const kept = times.filter((t) => t > since);
    if (kept.length === 0) this.failures.delete(key);
    else if (kept.length !== times.length) this.failures.set(key, kept);
    return kept;
  }
}

function keyOf(address: string): string {
  const v6 = isIPv6(address) && !address.toLowerCase().startsWith('::ffff:') ? ipv6Groups(address) : null;
  return v6
    ? `${v6
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(':')}::/64`
    : address;
}

/**
 * Hooks the throttle into every request that carries an `Authorization` header: refused with
 * 429 while its address is throttled (before the credentials are even looked at, so a guess
 * teaches nothing), and counted when the answer is 401.
 */
export function registerAuthThrottle(app: FastifyInstance, throttle: AuthThrottle): void {
  app.addHook('onRequest', async (request) => {
    if (!request.headers.authorization) return;
    const wait = throttle.retryAfter(request.ip);
    if (wait > 0) {
      throw new HttpError(
        429,
        `Too many failed authentications from this address; try again in ${wait} s`,
        undefined,
        {
          'retry-after': String(wait),
        },
      );
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 && request.headers.authorization) throttle.failed(request.ip);
    return payload;
  });
}
