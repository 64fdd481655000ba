export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Returns [0, 1); tests pass a fixed one. */
  random?: () => number;
}

/**
 * Reconnect delays: doubling from initialMs up to maxMs, each drawn from the upper half of its
 * step ("equal jitter"), so a hub restart is not met by every bridge in the same millisecond while
 * no delay is ever shorter than half its step.
 */
export class Backoff {
  private attempt = 0;
  private readonly random: () => number;

  constructor(private readonly options: BackoffOptions) {
    this.random = options.random ?? Math.random;
  }

  next(): number {
    const step = Math.min(this.options.maxMs, this.options.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(step / 2 + this.random() * (step / 2));
  }

  reset(): void {
    this.attempt = 0;
  }
}
