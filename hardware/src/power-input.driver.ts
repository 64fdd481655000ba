import { type Input, InputState, PowerHysteresis } from './input.js';
import type { PowerMeter } from './power-meter.js';

export interface PowerInputOptions {
  meter: PowerMeter;
  /** Busy above this many watts. */
  thresholdWatts: number;
  /** Idle again only below thresholdWatts - hysteresisWatts. */
  hysteresisWatts: number;
  description?: string;
}

/** A busy input from a smart plug's power reading (PowerMeter), with hysteresis. */
export class PowerInput implements Input {
  readonly description: string;
  private readonly state = new InputState();
  private readonly hysteresis: PowerHysteresis;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: PowerInputOptions) {
    this.hysteresis = new PowerHysteresis(options.thresholdWatts, options.hysteresisWatts);
    this.description =
      options.description ??
      `power reading (busy above ${options.thresholdWatts} W, idle below ${options.thresholdWatts - options.hysteresisWatts} W)`;
  }

  async open(): Promise<void> {
    if (this.unsubscribe) return;
    this.unsubscribe = this.options.meter.onPower((watts) => this.state.set(this.hysteresis.update(watts)));
    this.state.set(this.hysteresis.update(this.options.meter.lastPower()));
  }

  get(): boolean | null {
    return this.state.get();
  }

  onChange(listener: (active: boolean | null) => void): () => void {
    return this.state.onChange(listener);
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
