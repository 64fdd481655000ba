import { encodeRelayFrame } from './lcus-relay.frames.js';
import { HardwareError, type HardwareLogger, silentLogger } from './hardware.errors.js';
import type { Relay, RelayState } from './relay.js';
import {
  closeSerialPort,
  openSerialPort,
  type SerialPortFactory,
  type SerialPortLike,
  writeAndDrain,
} from './serial-port.link.js';

export interface SerialRelayOptions {
  path: string;
  channel: number;
  baudRate: number;
  logger?: HardwareLogger;
  /** Tests pass a MockBinding port here; the default opens a real serial port. */
  openPort?: SerialPortFactory;
  /** How long a frame may take to leave the port before set() fails. */
  writeTimeoutMs?: number;
  openTimeoutMs?: number;
}

/** One channel of a USB serial relay board (LCUS type). */
export class SerialRelay implements Relay {
  readonly description: string;
  private port: SerialPortLike | null = null;
  /** Between open() and close(), even while the port itself is gone (unplugged). */
  private active = false;
  private state: RelayState = 'off';
  // Frames go out one at a time, in call order, so "on, off" never arrives as "off, on".
  private queue: Promise<unknown> = Promise.resolve();
  private readonly logger: HardwareLogger;

  constructor(private readonly options: SerialRelayOptions) {
    this.description = `serial relay board on ${options.path}, channel ${options.channel}`;
    this.logger = options.logger ?? silentLogger;
    // Validate now rather than on the first switch-on.
    encodeRelayFrame(options.channel, false);
  }

  async open(): Promise<void> {
    if (this.active) return;
    await this.connect();
    this.active = true;
    // Safe state first: the board may still hold "on" from before a crash.
    await this.enqueue(() => this.send('off'));
  }

  set(state: RelayState): Promise<void> {
    return this.enqueue(() => this.send(state));
  }

  get(): RelayState {
    return this.state;
  }

  healthy(): true | string {
    if (!this.active) return `${this.description}: not open`;
    return this.port ? true : `${this.description}: disconnected`;
  }

  async close(): Promise<void> {
    if (!this.active) return;
    try {
      await this.enqueue(() => this.send('off'));
    } catch (err) {
      this.logger.warn({ err }, 'could not switch the serial relay off while closing');
    }
    this.active = false;
    const port = this.port;
    this.port = null;
    if (port) await closeSerialPort(port);
  }

  private async connect(): Promise<void> {
    const port = await openSerialPort({
      path: this.options.path,
      baudRate: this.options.baudRate,
      device: 'serial relay board',
      openPort: this.options.openPort,
      timeoutMs: this.options.openTimeoutMs,
    });
    port.on('error', (err: Error) =>
      this.logger.error({ err, path: this.options.path }, 'serial relay port error'),
    );
    port.on('close', () => {
      if (this.port !== port) return; // closed by close()
      this.port = null;
      this.logger.warn(
        { path: this.options.path },
        'serial relay board disconnected; reopening on the next switch',
      );
    });
    this.port = port;
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }

  private async send(state: RelayState): Promise<void> {
    const what = `${this.description}: switching ${state}`;
    if (!this.active) throw new HardwareError('port-closed', `${what}: the board is not open`);
    // The board was unplugged and perhaps plugged back in: try once to reopen. If that fails the
    // caller gets the open error (no such device, ...), which says what is wrong.
    if (!this.port) await this.connect();
    await writeAndDrain(
      this.port!,
      encodeRelayFrame(this.options.channel, state === 'on'),
      this.options.writeTimeoutMs ?? 2000,
      what,
    );
    this.state = state;
    this.logger.debug({ state, channel: this.options.channel }, 'serial relay switched');
  }
}
