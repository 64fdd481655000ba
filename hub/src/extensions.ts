/**
 * A long-running part of the hub (the broker, the webhook worker, the Home Assistant link,
 * periodic jobs, the cluster's heartbeat...): something that starts after the storage is open
 * and stops before it closes. `stop` must be safe to call more than once.
 */
export interface Extension {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The hub's extensions, started one after the other in the order they are added and stopped in
 * reverse order. A start that fails stops those already started (in reverse order, each stop's
 * own failure ignored) and throws the start's error, so a failed start leaves no timer or socket
 * that would keep the process alive.
 */
export class Extensions {
  private readonly started: Extension[] = [];
  private stopping: Promise<void> | null = null;

  /** Starts `extension` (and answers it); on failure stops every started one and throws. */
  async start<E extends Extension>(extension: E): Promise<E> {
    try {
      await extension.start();
    } catch (err) {
      await this.stopQuietly();
      throw err;
    }
    this.started.push(extension);
    return extension;
  }

  /** The names of the started extensions, in start order. */
  get names(): string[] {
    return this.started.map((e) => e.name);
  }

  /** Stops every started extension in reverse order; a stop's failure is thrown after the rest stopped. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      let failure: unknown = null;
      for (const extension of this.started.reverse()) {
        try {
          await extension.stop();
        } catch (err) {
          failure ??= err;
        }
      }
      this.started.length = 0;
      if (failure) throw failure;
    })();
    return this.stopping;
  }

  /** Stops every started extension in reverse order, ignoring failures (after a failed start). */
  async stopQuietly(): Promise<void> {
    await this.stop().catch(() => {});
  }
}

/** An extension from two functions. */
export function extension(name: string, start: () => unknown, stop: () => unknown): Extension {
  return {
    name,
    async start() {
      await start();
    },
    async stop() {
      await stop();
    },
  };
}
