/**
 * A sensed input beside the relay: a busy contact or current clamp, an interlock, a door contact,
 * an exit button. `get()` is whether the input is active (busy, closed, open, pressed: the kind
 * says which), or null while its state is unknown (before the first reading, a file without the
 * entry, a smart plug that stopped answering).
 */
export interface Input {
  /** Human-readable description for logs. */
  readonly description: string;
  /** Starts reading; the first state may follow later through onChange. */
  open(): Promise<void>;
  get(): boolean | null;
  /** Calls `listener` with each new state (never twice the same). Returns the remover. */
  onChange(listener: (active: boolean | null) => void): () => void;
  /** Stops reading. Safe to call twice. */
  close(): Promise<void>;
}

/** Keeps the current state and tells listeners about changes only. */
export class InputState {
  private value: boolean | null = null;
  private readonly listeners = new Set<(active: boolean | null) => void>();

  get(): boolean | null {
    return this.value;
  }

  set(value: boolean | null): void {
    if (value === this.value) return;
    this.value = value;
    for (const listener of this.listeners) listener(value);
  }

  onChange(listener: (active: boolean | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export type SetTimer = (fn: () => void, ms: number) => { cancel(): void };

const realTimer: SetTimer = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  return { cancel: () => clearTimeout(timer) };
};

/**
 * Contact bounce: a level counts once it has held for `ms` (a mechanical contact chatters for a
 * few ms when it closes). A level that returns to the settled one before then reports nothing.
 */
export class InputDebouncer {
  private settled: boolean | null = null;
  private pending: { level: boolean; timer: { cancel(): void } } | null = null;

  constructor(
    private readonly ms: number,
    private readonly onSettled: (level: boolean) => void,
    private readonly setTimer: SetTimer = realTimer,
  ) {}

  /** The first level of a line (read at open) counts at once. */
  initial(level: boolean): void {
    this.pending?.timer.cancel();
    this.pending = null;
    this.settled = level;
    this.onSettled(level);
  }

  push(level: boolean): void {
    if (this.pending?.level === level) return;
    this.pending?.timer.cancel();
    this.pending = null;
    if (level === this.settled) return;
    if (this.ms === 0) {
      this.settled = level;
      this.onSettled(level);
      return;
    }
    this.pending = {
      level,
      timer: this.setTimer(() => {
        this.pending = null;
        this.settled = level;
        this.onSettled(level);
      }, this.ms),
    };
  }

  cancel(): void {
    this.pending?.timer.cancel();
    this.pending = null;
  }
}

/**
 * Busy from a power reading: busy above `thresholdWatts`, idle again only below
 * `thresholdWatts - hysteresisWatts`, so a machine drawing about the threshold does not flap.
 * An unknown reading (null: the plug is silent) makes the state unknown.
 */
export class PowerHysteresis {
  private busy: boolean | null = null;

  constructor(
    private readonly thresholdWatts: number,
    private readonly hysteresisWatts: number,
  ) {}

  update(watts: number | null): boolean | null {
    if (watts === null || !Number.isFinite(watts)) {
      this.busy = null;
    } else if (this.busy === true) {
      if (watts < this.thresholdWatts - this.hysteresisWatts) this.busy = false;
    } else if (this.busy === false) {
      if (watts > this.thresholdWatts) this.busy = true;
    } else {
      this.busy = watts > this.thresholdWatts;
    }
    return this.busy;
  }
}
