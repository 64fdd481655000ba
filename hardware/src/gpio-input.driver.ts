import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { HardwareError, type HardwareLogger, silentLogger } from './hardware.errors.js';
import { type Input, InputDebouncer, InputState } from './input.js';
import {
  GPIO_CONSUMER,
  type GpioLineInfo,
  type LibgpiodMajor,
  findGpioLine,
  parseGpioinfo,
  parseLibgpiodVersion,
} from './libgpiod.tools.js';

export type GpioBias = 'pull-up' | 'pull-down' | 'disable' | 'as-is';

/**
 * `gpioget` arguments that read the line's raw level once (printed as 0 or 1). libgpiod 2.x waits
 * 20 ms between setting the bias and reading, so a pull-up has raised the line first.
 */
export function gpiogetArgs(major: LibgpiodMajor, line: GpioLineInfo, bias: GpioBias): string[] {
  return major === 1
    ? [`--bias=${bias}`, line.chip, String(line.offset)]
    : [
        '--numeric',
        '--consumer',
        GPIO_CONSUMER,
        '--bias',
        bias,
        '--hold-period',
        '20ms',
        '--chip',
        line.chip,
        String(line.offset),
      ];
}

/** `gpiomon` arguments that print one line per edge, "<edge> <offset>", until the process ends. */
export function gpiomonArgs(major: LibgpiodMajor, line: GpioLineInfo, bias: GpioBias): string[] {
  return major === 1
    ? [`--bias=${bias}`, '--line-buffered', '--format=%e %o', line.chip, String(line.offset)]
    : [
        '--consumer',
        GPIO_CONSUMER,
        '--bias',
        bias,
        '--edges',
        'both',
        '--format',
        '%e %o',
        '--chip',
        line.chip,
        String(line.offset),
      ];
}

/**
 * The raw level after an edge `gpiomon` printed with the format "%e %o": libgpiod 1.x prints 1
 * for a rising edge and 0 for a falling one, 2.x prints 1 for rising and 2 for falling. Null for
 * anything else (a banner, a half line).
 */
export function parseGpiomonEvent(row: string, major: LibgpiodMajor): 0 | 1 | null {
  const match = /^\s*(\d)\s+\d+\s*$/.exec(row);
  if (!match) return null;
  const edge = Number(match[1]);
  if (edge === 1) return 1;
  if ((major === 1 && edge === 0) || (major === 2 && edge === 2)) return 0;
  return null;
}

export interface GpioInputOptions {
  /** BCM number: the line named "GPIO<pin>". */
  pin: number;
  gpioChip?: string;
  /** Active when the line is low (a contact to ground with a pull-up). */
  activeLow: boolean;
  bias: GpioBias;
  debounceMs: number;
  env?: NodeJS.ProcessEnv;
  logger?: HardwareLogger;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 3000 }, (err, stdout, stderr) => {
      if (!err) return resolve(String(stdout));
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      reject(
        new HardwareError(
          'gpio-unavailable',
          missing
            ? `GPIO input: "${command}" not found; install Debian's libgpiod tools: apt-get install gpiod`
            : `GPIO input: ${command} ${args.join(' ')} failed: ${String(stderr).trim() || err.message}`,
          { cause: err },
        ),
      );
    });
  });
}

/**
 * A GPIO input through the character device: `gpioget` reads the level once at open, then a
 * long-running `gpiomon` reports each edge; levels are debounced here. A monitor that ends by
 * itself makes the state unknown and is started again after a second.
 */
export class GpioInput implements Input {
  readonly description: string;
  private readonly state = new InputState();
  private readonly debouncer: InputDebouncer;
  private readonly logger: HardwareLogger;
  private monitor: ChildProcess | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = true;

  constructor(private readonly options: GpioInputOptions) {
    this.description = `GPIO${options.pin} input (${options.activeLow ? 'active low' : 'active high'}, ${options.bias})`;
    this.logger = options.logger ?? silentLogger;
    this.debouncer = new InputDebouncer(options.debounceMs, (level) => this.state.set(this.activeOf(level)));
  }

  async open(): Promise<void> {
    if (!this.closed) return;
    this.closed = false;
    await this.startMonitor();
  }

  get(): boolean | null {
    return this.state.get();
  }

  onChange(listener: (active: boolean | null) => void): () => void {
    return this.state.onChange(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.debouncer.cancel();
    const monitor = this.monitor;
    this.monitor = null;
    if (monitor && monitor.exitCode === null && monitor.signalCode === null) {
      await new Promise<void>((resolve) => {
        monitor.once('exit', () => resolve());
        monitor.kill('SIGTERM');
      });
    }
  }

  private activeOf(level: boolean): boolean {
    return this.options.activeLow ? !level : level;
  }

  private async startMonitor(): Promise<void> {
    const env = this.options.env ?? process.env;
    const major = parseLibgpiodVersion(await run('gpiomon', ['--version'], env));
    const lines = parseGpioinfo(await run('gpioinfo', [], env), major);
    const line = findGpioLine(lines, `GPIO${this.options.pin}`, this.options.gpioChip);
    // Read twice: a pin whose pull was another one until now (the Pi's GPIO22-27 pull down at
    // boot) may still read the old level at the first read, which sets the bias; libgpiod 1.x
    // has no hold period. A wrong first level would never be corrected, as no edge follows.
    const args = gpiogetArgs(major, line, this.options.bias);
    await run('gpioget', args, env);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const level = (await run('gpioget', args, env)).trim();
    if (level !== '0' && level !== '1')
      throw new HardwareError('gpio-pin', `GPIO input: gpioget printed ${JSON.stringify(level)}, not 0 or 1`);
    if (this.closed) return;
    this.debouncer.initial(level === '1');
    const monitor = spawn('gpiomon', gpiomonArgs(major, line, this.options.bias), {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.monitor = monitor;
    let buffered = '';
    monitor.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const rows = buffered.split('\n');
      buffered = rows.pop() ?? '';
      for (const row of rows) {
        const edge = parseGpiomonEvent(row, major);
        if (edge !== null) this.debouncer.push(edge === 1);
      }
    });
    monitor.on('error', (err) => this.logger.error({ err: err.message }, 'GPIO input: gpiomon failed'));
    monitor.on('exit', (code, signal) => {
      if (this.monitor !== monitor || this.closed) return;
      this.monitor = null;
      this.debouncer.cancel();
      this.state.set(null);
      this.logger.error(
        { pin: this.options.pin, code, signal },
        'GPIO input: gpiomon ended; starting it again',
      );
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        this.startMonitor().catch((err) =>
          this.logger.error({ err: (err as Error).message }, 'GPIO input: cannot watch the line'),
        );
      }, 1000);
    });
  }
}
