import { readFile } from 'node:fs/promises';
import { unwatchFile, watchFile } from 'node:fs';
import { type HardwareLogger, silentLogger } from './hardware.errors.js';
import { type Input, InputState } from './input.js';

export interface SimulatedInputsOptions {
  /** JSON object of input name to true (active) or false, e.g. {"busy": true, "lid": false}. */
  file: string;
  logger?: HardwareLogger;
  /** How often the file is looked at (ms); a change is seen within this time. */
  intervalMs?: number;
}

/**
 * The simulated hardware's inputs: one JSON file (the config's `hardware.inputsFile`) holds the
 * state of every input by name, and is read again whenever it changes, so people and tests drive
 * the inputs by editing it. A name missing from the file, or a value that is not true or false,
 * is unknown. A file that is not a JSON object is reported and leaves every state as it was.
 */
export class SimulatedInputsFile {
  private readonly states = new Map<string, InputState>();
  private opened = 0;
  private reading: Promise<void> = Promise.resolve();
  private readonly logger: HardwareLogger;

  constructor(private readonly options: SimulatedInputsOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  /** The input of this name, read from the file. */
  input(name: string): Input {
    let state = this.states.get(name);
    if (!state) {
      state = new InputState();
      this.states.set(name, state);
    }
    const shared = state;
    let open = false;
    return {
      description: `simulated input "${name}" (in ${this.options.file})`,
      open: async () => {
        if (open) return;
        open = true;
        await this.retain();
      },
      get: () => shared.get(),
      onChange: (listener) => shared.onChange(listener),
      close: async () => {
        if (!open) return;
        open = false;
        this.release();
      },
    };
  }

  private async retain(): Promise<void> {
    this.opened += 1;
    if (this.opened > 1) return this.reading;
    watchFile(this.options.file, { interval: this.options.intervalMs ?? 100, persistent: false }, () =>
      this.read(),
    );
    await this.read();
  }

  private release(): void {
    this.opened -= 1;
    if (this.opened === 0) unwatchFile(this.options.file);
  }

  private read(): Promise<void> {
    this.reading = this.reading.then(() => this.readNow());
    return this.reading;
  }

  private async readNow(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.options.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.logger.warn({ file: this.options.file, err: (err as Error).message }, 'inputs file unreadable');
      for (const state of this.states.values()) state.set(null);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      // Half-edited by hand: keep the states until the file is whole again.
      this.logger.warn(
        { file: this.options.file, err: (err as Error).message },
        'inputs file is not JSON; ignored',
      );
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.logger.warn({ file: this.options.file }, 'inputs file must hold a JSON object; ignored');
      return;
    }
    for (const [name, state] of this.states) {
      const entry = (value as Record<string, unknown>)[name];
      state.set(typeof entry === 'boolean' ? entry : null);
    }
  }
}
