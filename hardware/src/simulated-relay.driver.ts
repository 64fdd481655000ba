import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { HardwareError, type HardwareLogger, silentLogger } from './hardware.errors.js';
import type { Relay, RelayState } from './relay.js';

/** What the state file holds (spec section 3); demos and e2e tests read it. */
export interface SimulatedRelayFile {
  relay: RelayState;
  since: string;
}

export interface SimulatedRelayOptions {
  stateFile: string;
  logger?: HardwareLogger;
  /** The time written as `since`; tests pass a fixed clock. */
  now?: () => Date;
}

/**
 * A relay without hardware: its state lives in a JSON file so that people and tests can watch
 * the "door" open. Every write goes to a temporary file that is renamed over the old one, so a
 * reader never sees half a file.
 */
export class SimulatedRelay implements Relay {
  readonly description: string;
  private state: RelayState = 'off';
  private opened = false;
  private writeCount = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  private readonly logger: HardwareLogger;

  constructor(private readonly options: SimulatedRelayOptions) {
    this.description = `simulated relay (state in ${options.stateFile})`;
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger ?? silentLogger;
  }

  async open(): Promise<void> {
    if (this.opened) return;
    try {
      await mkdir(dirname(this.options.stateFile), { recursive: true });
    } catch (err) {
      throw new HardwareError(
        'state-file',
        `simulated relay: cannot create the directory of ${this.options.stateFile}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    // Written even though the state is already off: the file must not show a stale "on".
    await this.enqueue(() => this.write('off'));
    this.opened = true;
  }

  set(state: RelayState): Promise<void> {
    return this.enqueue(async () => {
      if (!this.opened) throw new HardwareError('port-closed', 'simulated relay: set() before open()');
      // `since` is when the state last changed, so repeating the same state leaves the file alone.
      if (state !== this.state) await this.write(state);
    });
  }

  get(): RelayState {
    return this.state;
  }

  async close(): Promise<void> {
    if (!this.opened) return;
    await this.enqueue(async () => {
      if (this.state !== 'off') await this.write('off');
    });
    this.opened = false;
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }

  private async write(state: RelayState): Promise<void> {
    const file = this.options.stateFile;
    const body: SimulatedRelayFile = { relay: state, since: this.now().toISOString() };
    const temp = `${file}.${process.pid}.${++this.writeCount}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify(body)}\n`);
      await rename(temp, file);
    } catch (err) {
      throw new HardwareError(
        'state-file',
        `simulated relay: cannot write ${file}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    this.state = state;
    this.logger.debug({ state }, 'simulated relay switched');
  }
}
