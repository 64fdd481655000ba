import type { Clock } from '../context.js';
import { errorBody } from '../errors.js';
import type { UnauthorizedAnswer } from './error-handler.js';
import {
  addressKey,
  type FailureWindows,
  type FailureWindowsFactory,
  memoryFailureWindows,
} from '../throttling/failure-windows.js';

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
 * address has `limit` failures within `windowMs`, every wrong credential from it is answered 429
 * until its oldest failure leaves the window; `Retry-After` says exactly when.
 * IPv6 clients are counted per /64 (one host usually owns the whole prefix). Counted in this
 * process's memory, or in Redis in cluster mode (throttling/failure-windows.ts), so every hub
 * counts the same failures.
 */
export class AuthThrottle {
  private readonly failures: FailureWindows;

  constructor(
    private readonly clock: Clock,
    settings: AuthThrottleSettings = defaultAuthThrottle,
    windows: FailureWindowsFactory = memoryFailureWindows,
  ) {
    this.failures = windows('auth', settings.windowMs, settings.limit, settings.maxAddresses);
  }

  /** Seconds until the address may try again, or 0 when it may now. */
  async retryAfter(address: string): Promise<number> {
    const wait = await this.failures.waitMs(addressKey(address), this.clock.now().getTime());
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : 0;
  }

  async failed(address: string): Promise<void> {
    await this.failures.add(addressKey(address), this.clock.now().getTime());
  }
}

/**
 * The throttle's say on a 401 to a request that carries an `Authorization` header (the error
 * handler asks it, http/error-handler.ts). The credentials are always looked at: API tokens and
 * bridge keys are 122 random bits, so a right one is never a guess and is never refused for
 * failures of others behind the same address (a shared NAT would otherwise lock out a whole
 * space's integrations). A wrong one is counted, and once its address is throttled it is answered
 * 429 with `Retry-After` instead of 401, so guessing teaches nothing more and costs the guesser
 * time. Passwords, sign-in links and switch-on codes, which can be guessed, have their own
 * throttles that refuse before looking (sign-in/throttle.ts, resources/switch-on.ts). Other
 * answers pass no hook of the throttle's.
 */
export function throttleUnauthorized(throttle: AuthThrottle): UnauthorizedAnswer {
  return async (request, reply, unauthorized) => {
    const wait = await throttle.retryAfter(request.ip);
    if (wait === 0) {
      await throttle.failed(request.ip);
      return unauthorized();
    }
    return reply
      .code(429)
      .header('retry-after', String(wait))
      .send(errorBody(429, `Too many failed authentications from this address; try again in ${wait} s`));
  };
}
