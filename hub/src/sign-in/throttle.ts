import type { Clock } from '../context.js';

/**
 * Counts events per key in a sliding window. In memory for one hub process; a cluster keeps the
 * counters in shared storage behind the same interface (DESIGN 10).
 */
export interface Throttle {
  /** Seconds until `key` may act again (0: it may now). Counts nothing. */
  retryAfter(key: string): Promise<number>;
  /** Counts one event for `key`. */
  hit(key: string): Promise<void>;
  /** Forgets the events of `key`. */
  reset(key: string): Promise<void>;
}

export class MemoryThrottle implements Throttle {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
    private readonly maxKeys = 100_000,
  ) {}

  private recent(key: string, now: number): number[] {
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (list.length === 0) this.hits.delete(key);
    else this.hits.set(key, list);
    return list;
  }

  async retryAfter(key: string): Promise<number> {
    const now = this.clock.now().getTime();
    const list = this.recent(key, now);
    if (list.length < this.limit) return 0;
    // The slot frees when the oldest event that keeps the key at its limit leaves the window.
    const freesAt = list[list.length - this.limit] + this.windowMs;
    return Math.max(1, Math.ceil((freesAt - now) / 1000));
  }

  async hit(key: string): Promise<void> {
    const now = this.clock.now().getTime();
    if (this.hits.size >= this.maxKeys) this.sweep(now);
    const list = this.recent(key, now);
    list.push(now);
    this.hits.set(key, list);
  }

  async reset(key: string): Promise<void> {
    this.hits.delete(key);
  }

  private sweep(now: number): void {
    for (const key of [...this.hits.keys()]) this.recent(key, now);
    // Still full of live keys (an attack from many addresses): start over rather than grow.
    if (this.hits.size >= this.maxKeys) this.hits.clear();
  }
}

/** The sign-in throttles (docs/SIGN-IN.md). */
export interface SignInThrottles {
  /** Failed logins per e-mail address. */
  loginPerEmail: Throttle;
  /** Failed logins per source address. */
  loginPerAddress: Throttle;
  /** Sign-in link requests per e-mail address. */
  linksPerEmail: Throttle;
  /** Sign-in link requests per source address. */
  linksPerAddress: Throttle;
}

const fifteenMinutes = 15 * 60_000;

export function memoryThrottles(clock: Clock): SignInThrottles {
  return {
    loginPerEmail: new MemoryThrottle(5, fifteenMinutes, clock),
    loginPerAddress: new MemoryThrottle(30, fifteenMinutes, clock),
    linksPerEmail: new MemoryThrottle(3, fifteenMinutes, clock),
    linksPerAddress: new MemoryThrottle(10, fifteenMinutes, clock),
  };
}
