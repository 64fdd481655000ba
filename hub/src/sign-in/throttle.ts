import type { Clock } from '../context.js';
import {
  type FailureWindows,
  type FailureWindowsFactory,
  memoryFailureWindows,
} from '../throttling/failure-windows.js';

/**
 * Counts events per key in a sliding window: in this hub's memory, or in Redis in cluster mode
 * (throttling/failure-windows.ts), so every hub of a cluster counts the same events.
 */
export interface Throttle {
  /** Seconds until `key` may act again (0: it may now). Counts nothing. */
  retryAfter(key: string): Promise<number>;
  /** Counts one event for `key`. */
  hit(key: string): Promise<void>;
  /** Forgets the events of `key`. */
  reset(key: string): Promise<void>;
}

/** At most `limit` events per key within `windowMs`, counted in `windows`. */
export class WindowThrottle implements Throttle {
  constructor(
    private readonly windows: FailureWindows,
    private readonly clock: Clock,
  ) {}

  async retryAfter(key: string): Promise<number> {
    const waitMs = await this.windows.waitMs(key, this.clock.now().getTime());
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
  }

  async hit(key: string): Promise<void> {
    await this.windows.add(key, this.clock.now().getTime());
  }

  reset(key: string): Promise<void> {
    return this.windows.clear(key);
  }
}

/** The throttles of people who are not signed in yet (docs/SIGN-IN.md, docs/DECISIONS.md "Sign-up"). */
export interface SignInThrottles {
  /** Failed logins per e-mail address. */
  loginPerEmail: Throttle;
  /** Failed logins per source address. */
  loginPerAddress: Throttle;
  /** Sign-in link requests per e-mail address. */
  linksPerEmail: Throttle;
  /** Sign-in link requests per source address. */
  linksPerAddress: Throttle;
  /** Sign-ups per source address. */
  signUpsPerAddress: Throttle;
  /** Requests for another sign-up confirmation link per source address. */
  signUpLinksPerAddress: Throttle;
}

const fifteenMinutes = 15 * 60_000;
const hour = 3600_000;

/** The throttles, counted in this hub's memory or in the cluster's shared windows. */
export function signInThrottles(
  clock: Clock,
  windows: FailureWindowsFactory = memoryFailureWindows,
): SignInThrottles {
  const throttle = (name: string, limit: number, windowMs: number) =>
    new WindowThrottle(windows(name, windowMs, limit, 100_000), clock);
  return {
    loginPerEmail: throttle('login-email', 5, fifteenMinutes),
    loginPerAddress: throttle('login-address', 30, fifteenMinutes),
    linksPerEmail: throttle('link-email', 3, fifteenMinutes),
    linksPerAddress: throttle('link-address', 10, fifteenMinutes),
    signUpsPerAddress: throttle('sign-up-address', 10, hour),
    signUpLinksPerAddress: throttle('sign-up-link-address', 5, hour / 4),
  };
}
