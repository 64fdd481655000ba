/**
 * A relay that also measures the power its machine draws (a smart plug). The agent's inputs of
 * source `power` read it to tell a busy machine from an idle one (issue: idle and busy sensing).
 */
export interface PowerMeter {
  /**
   * Calls `listener` with each new reading in watts, and with `null` when the device stops
   * answering (the reading is unknown, not zero). Returns a function that removes the listener.
   */
  onPower(listener: (watts: number | null) => void): () => void;
  /** The last reading in watts, or null before the first one or while the device is silent. */
  lastPower(): number | null;
}

/** Whether a relay driver is also a power meter. */
export function isPowerMeter(value: unknown): value is PowerMeter {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PowerMeter).onPower === 'function' &&
    typeof (value as PowerMeter).lastPower === 'function'
  );
}
