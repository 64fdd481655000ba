import type { Display } from './display.js';
import { HardwareError, type HardwareLogger, silentLogger } from './hardware.errors.js';
import { LCD_CLEAR, lcdByte, lcdInitSteps, lcdPlainText, lcdRowBytes } from './hd44780.frames.js';

/** The part of an i2c-bus PromisifiedBus the display uses; tests pass a fake that records writes. */
export interface I2cBusLike {
  i2cWrite(address: number, length: number, buffer: Buffer): Promise<unknown>;
  close(): Promise<void>;
}

export type I2cBusOpener = (busNumber: number) => Promise<I2cBusLike>;

export interface LcdI2cOptions {
  /** /dev/i2c-<bus>: 1 on every Pi since the model B rev 2 (pins 3 SDA and 5 SCL). */
  bus: number;
  /** The backpack's 7-bit address: 0x27 (39) for PCF8574, 0x3F (63) for PCF8574A, as jumpered. */
  address: number;
  columns: number;
  rows: number;
  backlight: boolean;
  logger?: HardwareLogger;
  openBus?: I2cBusOpener;
  /** How the init sequence waits; tests pass one that records. */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** i2c-bus is an optional dependency with a native part: loaded on open(), like onoff and serialport. */
const defaultOpenBus: I2cBusOpener = async (busNumber) => {
  let i2c: typeof import('i2c-bus');
  try {
    i2c = await import('i2c-bus');
  } catch (err) {
    throw new HardwareError(
      'device-error',
      'the i2c-bus package is not installed (npm ci on the Pi builds it; it needs make and g++)',
      { cause: err },
    );
  }
  return i2c.openPromisified(busNumber);
};

/** An HD44780 character LCD (16x2, 20x4) on a PCF8574 I2C backpack. */
export class LcdI2cDisplay implements Display {
  readonly description: string;
  readonly columns: number;
  readonly rows: number;
  private bus: I2cBusLike | null = null;
  private shown: string[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private readonly logger: HardwareLogger;

  constructor(private readonly options: LcdI2cOptions) {
    this.columns = options.columns;
    this.rows = options.rows;
    const hex = `0x${options.address.toString(16).padStart(2, '0')}`;
    this.description = `${options.columns}x${options.rows} LCD on I2C bus ${options.bus} at ${hex}`;
    this.logger = options.logger ?? silentLogger;
  }

  async open(): Promise<void> {
    if (this.bus) return;
    let bus: I2cBusLike;
    try {
      bus = await (this.options.openBus ?? defaultOpenBus)(this.options.bus);
    } catch (err) {
      if (err instanceof HardwareError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new HardwareError(
        code === 'EACCES' ? 'port-permission' : 'port-not-found',
        code === 'ENOENT'
          ? `/dev/i2c-${this.options.bus} does not exist: enable I2C (raspi-config > Interface Options > I2C, or dtparam=i2c_arm=on in config.txt) and reboot`
          : code === 'EACCES'
            ? `no permission on /dev/i2c-${this.options.bus}: add the agent's user to the i2c group`
            : `cannot open /dev/i2c-${this.options.bus}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    this.bus = bus;
    const sleep = this.options.sleep ?? realSleep;
    try {
      await this.enqueue(async () => {
        for (const step of lcdInitSteps(this.options.backlight)) {
          await this.write(step.bytes);
          await sleep(step.delayMs);
        }
      });
    } catch (err) {
      this.bus = null;
      await bus.close().catch(() => {});
      throw err;
    }
    this.shown = [];
  }

  /** Rewrites only the rows that changed: a full 20x4 rewrite is about 400 bytes on a 100 kHz bus. */
  show(lines: readonly string[]): Promise<void> {
    return this.enqueue(async () => {
      if (!this.bus) throw new HardwareError('port-closed', `${this.description}: not open`);
      for (let row = 0; row < this.rows; row += 1) {
        const text = lcdPlainText(lines[row] ?? '')
          .slice(0, this.columns)
          .padEnd(this.columns);
        if (this.shown[row] === text) continue;
        await this.write(lcdRowBytes(row, text, this.columns, this.options.backlight));
        this.shown[row] = text;
      }
    });
  }

  async close(): Promise<void> {
    const bus = this.bus;
    if (!bus) return;
    try {
      await this.enqueue(async () => {
        await this.write(lcdByte(LCD_CLEAR, false, false));
        await (this.options.sleep ?? realSleep)(2);
      });
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not clear the LCD while closing');
    }
    this.bus = null;
    await bus.close().catch(() => {});
  }

  private async write(bytes: number[]): Promise<void> {
    const bus = this.bus;
    if (!bus) throw new HardwareError('port-closed', `${this.description}: not open`);
    const buffer = Buffer.from(bytes);
    try {
      await bus.i2cWrite(this.options.address, buffer.length, buffer);
    } catch (err) {
      throw new HardwareError(
        'device-unreachable',
        `${this.description}: write failed (${(err as Error).message}); check the wiring and the address (i2cdetect -y ${this.options.bus})`,
        { cause: err },
      );
    }
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }
}
