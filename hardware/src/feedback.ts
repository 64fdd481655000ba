import type { Relay } from './relay.js';

/**
 * A buzzer or LED on a second output tells the person at the reader what happened: a short beep
 * when access is allowed, a long one when it is denied. Any Relay drives it (GPIO pin, a spare
 * channel of the serial relay board, or a simulated relay in demos).
 */
export type BeepPattern = 'allowed' | 'denied' | 'warning' | readonly number[];

/** Built-in patterns as alternating on/off durations in ms, starting with on. */
export const BEEP_PATTERNS = {
  allowed: [150],
  denied: [800],
  warning: [100, 100, 100, 100, 100],
} as const satisfies Record<string, readonly number[]>;

/** How beep() waits; tests pass one that records durations instead of sleeping. */
export type Sleep = (ms: number) => Promise<void>;

const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Plays a pattern on the output. The output always ends off, even when switching fails half way,
 * so a buzzer never keeps sounding.
 */
export async function beep(output: Relay, pattern: BeepPattern, sleep: Sleep = realSleep): Promise<void> {
  const durations = typeof pattern === 'string' ? BEEP_PATTERNS[pattern] : pattern;
  if (!durations || durations.some((ms) => !Number.isFinite(ms) || ms < 0)) {
    throw new RangeError(
      `a beep pattern is "allowed", "denied" or a list of non-negative ms, got ${String(pattern)}`,
    );
  }
  try {
    for (const [index, ms] of durations.entries()) {
      await output.set(index % 2 === 0 ? 'on' : 'off');
      await sleep(ms);
    }
  } finally {
    if (output.get() !== 'off') await output.set('off');
  }
}
