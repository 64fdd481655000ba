import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { HardwareError } from './hardware.errors.js';
import {
  type GpioLineInfo,
  type LibgpiodMajor,
  findGpioLine,
  gpioinfoChipArgs,
  gpiosetHoldArgs,
  gpiosetOnceArgs,
  holderScript,
  parseGpioinfo,
  parseLibgpiodVersion,
} from './libgpiod.tools.js';

type Level = 0 | 1;

export const DEFAULT_DEV_DIR = '/dev';

/** How long a gpioset may take to hold its line before the switch counts as failed. */
const HOLD_TIMEOUT_MS = 3000;

/** True when the kernel offers the GPIO character device (`/dev/gpiochipN`). */
export function hasGpioCharacterDevice(devDir = DEFAULT_DEV_DIR): boolean {
  try {
    return readdirSync(devDir).some((name) => /^gpiochip\d+$/.test(name));
  } catch {
    return false;
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: HOLD_TIMEOUT_MS }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        reject(
          new HardwareError(
            'gpio-unavailable',
            code === 'ENOENT'
              ? `GPIO relay: "${command}" not found; install Debian's libgpiod tools: apt-get install gpiod`
              : `GPIO relay: ${command} ${args.join(' ')} failed: ${String(stderr).trim() || err.message}`,
            { cause: err },
          ),
        );
      } else resolve(String(stdout));
    });
  });
}

/** Whether `gpioset` of libgpiod can be run here (found on PATH). */
export function hasLibgpiodTools(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? '')
    .split(':')
    .some((dir) => dir !== '' && existsSync(`${dir}/gpioset`) && existsSync(`${dir}/gpioinfo`));
}

/**
 * A GPIO output through the character device, driven by libgpiod's `gpioset` in a small `sh`
 * holder (libgpiod.tools.ts explains the script). Each new level replaces the holder; a write
 * resolves once `gpioinfo` shows the line held as an output.
 */
export class ChardevGpioLine {
  private holder: ChildProcess | null = null;
  private holderError = '';
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly major: LibgpiodMajor,
    readonly line: GpioLineInfo,
    private readonly offLevel: Level,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Finds the line by name, then holds it at `offLevel`. */
  static async open(options: {
    lineName: string;
    chip?: string;
    offLevel: Level;
    env?: NodeJS.ProcessEnv;
  }): Promise<ChardevGpioLine> {
    const env = options.env ?? process.env;
    const major = parseLibgpiodVersion(await run('gpioset', ['--version'], env));
    const lines = parseGpioinfo(await run('gpioinfo', [], env), major);
    const line = findGpioLine(lines, options.lineName, options.chip);
    if (line.consumer !== null) {
      // An agent that used sysfs before leaves its line exported on purpose (gpio-relay.driver.ts).
      const hint =
        line.consumer === 'sysfs'
          ? ': it is still exported through sysfs (by an earlier agent); unexport it ' +
            '(echo <number> > /sys/class/gpio/unexport, the number is in /sys/class/gpio) or reboot'
          : '';
      throw new HardwareError(
        'gpio-pin',
        `GPIO relay: ${line.chip} line ${line.offset} ("${options.lineName}") is in use by "${line.consumer}"${hint}`,
      );
    }
    const gpio = new ChardevGpioLine(major, line, options.offLevel, env);
    await gpio.write(options.offLevel);
    return gpio;
  }

  get version(): LibgpiodMajor {
    return this.major;
  }

  /** Drives the line to `level` and resolves once it is held there. Writes run one at a time. */
  write(level: Level): Promise<void> {
    const next = this.queue.then(() => this.hold(level));
    this.queue = next.catch(() => {});
    return next;
  }

  /**
   * Synchronous, for process exit and close(): ends the holder at once and drives the line to
   * `level` with a one-shot gpioset, which leaves the line released.
   */
  writeSync(level: Level): void {
    const holder = this.holder;
    this.holder = null;
    if (holder?.pid !== undefined && holder.exitCode === null && holder.signalCode === null) {
      try {
        // The holder leads its own process group: this ends the shell and gpioset together.
        process.kill(-holder.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    const args = gpiosetOnceArgs(this.major, this.line, level);
    // gpioset fails with "busy" until the killed holder has released the line: retry briefly.
    const deadline = Date.now() + HOLD_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const result = spawnSync('gpioset', args, { env: this.env, stdio: 'ignore', timeout: 2000 });
      if (result.status === 0) return;
      spawnSync('sleep', ['0.01']);
    }
    throw new HardwareError('gpio-pin', `GPIO relay: gpioset ${args.join(' ')} kept failing`);
  }

  /** True while the holder runs, or why it stopped. */
  healthy(): true | string {
    const holder = this.holder;
    if (!holder) return true;
    if (holder.exitCode === null && holder.signalCode === null) return true;
    return `gpioset stopped holding ${this.line.chip} line ${this.line.offset}${this.holderError ? `: ${this.holderError}` : ''}`;
  }

  private async hold(level: Level): Promise<void> {
    await this.release();
    const script = holderScript(
      'gpioset',
      gpiosetHoldArgs(this.major, this.line, level),
      gpiosetOnceArgs(this.major, this.line, this.offLevel),
    );
    const holder = spawn('sh', ['-c', script], {
      env: this.env,
      detached: true,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    this.holder = holder;
    this.holderError = '';
    holder.stderr?.on('data', (chunk: Buffer) => {
      this.holderError = `${this.holderError}${chunk.toString()}`.slice(-500).trim();
    });
    holder.on('error', (err) => {
      this.holderError = err.message;
    });
    // The agent's event loop must not wait for the holder, which lives as long as the level.
    holder.unref();
    (holder.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    (holder.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    const deadline = Date.now() + HOLD_TIMEOUT_MS;
    for (;;) {
      const listing = await run('gpioinfo', gpioinfoChipArgs(this.major, this.line.chip), this.env);
      const info = parseGpioinfo(listing, this.major).find((line) => line.offset === this.line.offset);
      if (info?.consumer && info.direction === 'output') return;
      if (this.holderError || Date.now() > deadline) {
        const why = this.holderError || `not held after ${HOLD_TIMEOUT_MS} ms`;
        await this.release();
        throw new HardwareError(
          'gpio-pin',
          `GPIO relay: cannot drive ${this.line.chip} line ${this.line.offset}: ${why}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Ends the current holder (which drives the line off once) and waits until it has exited. */
  private release(): Promise<void> {
    const holder = this.holder;
    this.holder = null;
    if (!holder || holder.exitCode !== null || holder.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      // Waiting for the exit keeps the process alive until the line is off.
      holder.ref();
      holder.once('exit', () => resolve());
      holder.stdin?.end();
    });
  }
}
