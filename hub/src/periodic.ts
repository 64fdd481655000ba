import type { Logger } from '@makerspace/shared';

export interface PeriodicCheck {
  /** Runs the check now; a call while one runs waits for that one. */
  check(): Promise<void>;
  /** Checks every `intervalMs` from now on (and once at once when `immediately`). */
  start(options?: { immediately?: boolean }): void;
  /** Stops the timer and waits for a check in progress. */
  stop(): Promise<void>;
}

/**
 * A background check the hub runs every so often (HTTP bridge heartbeats, local midnight). One
 * runs at a time; a failure is logged and the next interval tries again.
 */
export function periodicCheck(
  run: () => Promise<void>,
  intervalMs: number,
  logger: Logger,
  failure: string,
): PeriodicCheck {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const check = (): Promise<void> => {
    running ??= run()
      .catch((err) => logger.error({ err }, failure))
      .finally(() => {
        running = null;
      });
    return running;
  };
  return {
    check,
    start({ immediately = false } = {}) {
      if (immediately) void check();
      timer = setInterval(() => void check(), intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
