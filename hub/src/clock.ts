/** A clock the policy, billing and session code read, so tests can set the time (the clock port). */
export interface Clock {
  now(): Date;
}

/** The machine's clock: the one place the hub reads the time of day directly. */
export const systemClock: Clock = { now: () => new Date() };
