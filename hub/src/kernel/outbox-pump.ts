/**
 * What keeps an outbox worker reading its table (webhook deliveries, mail notifications): a poll
 * every `intervalMs`, a wake at once when something was queued, a wake when a retry falls due,
 * and passes that never overlap: a wake during a pass runs one more pass after it (wakes during a
 * pass coalesce into one). `stop` ends polling and retries and waits for the running pass.
 */
export class OutboxPump {
  private timer: NodeJS.Timeout | null = null;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private running = false;
  private again = false;
  private passing: Promise<void> = Promise.resolve();
  /** True until `start` and again after `stop`: a pass checks it to end early. */
  stopped = true;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Starts polling (false when already started). */
  start(intervalMs: number): boolean {
    if (!this.stopped) return false;
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), intervalMs);
    this.timer.unref();
    this.wake();
    return true;
  }

  /** Stops polling and the retries waiting, then waits for the pass that runs. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    await this.passing;
  }

  /** Reads the outbox now (coalesced: a wake during a pass runs one more pass). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.passing = (async () => {
      do {
        this.again = false;
        try {
          await this.pass();
        } catch (err) {
          if (!this.stopped) this.failed(err);
        }
      } while (this.again && !this.stopped);
      this.running = false;
    })();
  }

  /** Wakes when a retry falls due, `delayMs` from now (nothing once stopped). */
  wakeIn(delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.wake();
    }, delayMs);
    timer.unref();
    this.retryTimers.add(timer);
  }
}
