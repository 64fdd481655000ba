import { afterEach } from 'vitest';

/**
 * Registers cleanups (ports, socat processes, temp dirs) and runs them after each test, newest
 * first, so nothing a test opened outlives it even when the test fails.
 */
export function useTeardown(): (cleanup: () => unknown) => void {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    while (cleanups.length) {
      try {
        await cleanups.pop()!();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length) throw errors[0];
  });
  return (cleanup) => {
    cleanups.push(cleanup);
  };
}
