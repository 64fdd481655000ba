import { existsSync } from 'node:fs';
import { ChardevGpioLine, hasGpioCharacterDevice, hasLibgpiodTools } from './gpio-chardev.line.js';
import { DEFAULT_SYSFS_GPIO_ROOT, gpioUnavailable, resolveSysfsGpio } from './gpio-chip.resolver.js';
import { HardwareError, type HardwareLogger, silentLogger } from './hardware.errors.js';
import type { Relay, RelayState } from './relay.js';

type Level = 0 | 1;

/** The part of an onoff `Gpio` output the relay uses. */
export interface GpioLine {
  write(level: Level): Promise<void>;
  writeSync(level: Level): void;
  /** True, or why the line is no longer driven (the character device's gpioset holder died). */
  healthy?(): true | string;
}

/**
 * `chardev`: the GPIO character device through libgpiod's tools; `sysfs`: /sys/class/gpio through
 * onoff; `auto`: the character device where the kernel has it and the tools are installed.
 */
export type GpioInterface = 'auto' | 'chardev' | 'sysfs';

/** What the relay needs from onoff; tests pass a fake that records levels. */
export interface GpioBackend {
  /** False when sysfs GPIO cannot be exported here (missing, or no permission). */
  accessible: boolean;
  /** Exports line `gpio` as an output that starts at the physical `initial` level. */
  output(gpio: number, initial: Level): GpioLine;
}

/** Loads onoff on first use: it pulls in a native module (epoll) that only builds on Linux. */
export async function loadOnoffBackend(): Promise<GpioBackend> {
  let onoff: typeof import('onoff');
  try {
    onoff = await import('onoff');
  } catch (err) {
    throw gpioUnavailable(
      `the onoff module could not load: ${(err as Error).message}; it is optional and builds ` +
        'from source, so install g++, make and python3 and run npm ci again',
      err,
    );
  }
  const { Gpio } = onoff;
  return {
    accessible: Gpio.accessible,
    // activeLow: false resets a line another program left inverted; we invert ourselves so the
    // direction's initial level ('high'/'low' are physical levels in sysfs) is already "off".
    output: (gpio, initial) => new Gpio(gpio, initial ? 'high' : 'low', 'none', { activeLow: false }),
  };
}

export interface GpioRelayOptions {
  /** BCM pin number, as printed on Pi pinout charts (GPIO17 is 17). */
  relayPin: number;
  /** True for relay modules that switch on when the pin is pulled low (most cheap boards). */
  activeLow: boolean;
  gpioChipLabel?: string;
  sysfsRoot?: string;
  gpioInterface?: GpioInterface;
  /** Character device: the chip (e.g. "gpiochip0") to find the line on, when the name is ambiguous. */
  gpioChip?: string;
  /** Where to look for `gpiochipN` devices (tests point it at a stand-in). */
  devDir?: string;
  /** Environment of the libgpiod tools (its PATH finds them). */
  env?: NodeJS.ProcessEnv;
  logger?: HardwareLogger;
  loadBackend?: () => Promise<GpioBackend>;
}

/** A relay on a Raspberry Pi GPIO pin, through the GPIO character device or sysfs (onoff). */
export class GpioRelay implements Relay {
  readonly description: string;
  private line: GpioLine | null = null;
  private state: RelayState = 'off';
  private readonly logger: HardwareLogger;
  // Last line of defence: if the process exits without close() (uncaught error, process.exit),
  // switch the output off synchronously so a door or machine is never left powered.
  private readonly offOnExit = () => {
    try {
      this.line?.writeSync(this.level('off'));
    } catch {
      // Nothing more can be done while exiting.
    }
  };

  constructor(private readonly options: GpioRelayOptions) {
    this.description = `GPIO relay on BCM pin ${options.relayPin} (${options.activeLow ? 'active low' : 'active high'})`;
    this.logger = options.logger ?? silentLogger;
  }

  async open(): Promise<void> {
    if (this.line) return;
    if (this.chooseInterface() === 'chardev') {
      const line = await ChardevGpioLine.open({
        lineName: `GPIO${this.options.relayPin}`,
        chip: this.options.gpioChip,
        offLevel: this.level('off'),
        env: this.options.env,
      });
      this.line = line;
      this.state = 'off';
      process.on('exit', this.offOnExit);
      this.logger.info(
        {
          bcmPin: this.options.relayPin,
          chip: line.line.chip,
          offset: line.line.offset,
          libgpiod: line.version,
        },
        'GPIO relay ready (character device)',
      );
      return;
    }
    await this.openSysfs();
  }

  private chooseInterface(): 'chardev' | 'sysfs' {
    const wanted = this.options.gpioInterface ?? 'auto';
    if (wanted !== 'auto') return wanted;
    const chardev = hasGpioCharacterDevice(this.options.devDir);
    const tools = hasLibgpiodTools(this.options.env);
    if (chardev && tools) return 'chardev';
    const sysfs = existsSync(this.options.sysfsRoot ?? DEFAULT_SYSFS_GPIO_ROOT);
    if (chardev && !sysfs) {
      throw new HardwareError(
        'gpio-unavailable',
        'GPIO relay: this kernel has the GPIO character device but no sysfs GPIO, and the libgpiod ' +
          'tools (gpioset, gpioinfo) are not installed: apt-get install gpiod',
      );
    }
    if (chardev) {
      this.logger.warn(
        {},
        'GPIO relay: libgpiod tools not installed (apt-get install gpiod); using sysfs GPIO',
      );
    }
    return 'sysfs';
  }

  private async openSysfs(): Promise<void> {
    const sysfsRoot = this.options.sysfsRoot ?? DEFAULT_SYSFS_GPIO_ROOT;
    const gpio = resolveSysfsGpio(this.options.relayPin, {
      sysfsRoot,
      chipLabel: this.options.gpioChipLabel,
    });
    const backend = await (this.options.loadBackend ?? loadOnoffBackend)();
    if (!backend.accessible)
      throw gpioUnavailable(`cannot write ${sysfsRoot}/export (missing or permission denied)`);
    try {
      this.line = backend.output(gpio, this.level('off'));
    } catch (err) {
      throw new HardwareError(
        'gpio-pin',
        `GPIO relay: cannot export GPIO ${gpio}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    this.state = 'off';
    process.on('exit', this.offOnExit);
    this.logger.info({ bcmPin: this.options.relayPin, sysfsGpio: gpio }, 'GPIO relay ready');
  }

  async set(state: RelayState): Promise<void> {
    if (!this.line) throw new HardwareError('port-closed', `${this.description}: set() before open()`);
    await this.line.write(this.level(state));
    this.state = state;
  }

  get(): RelayState {
    return this.state;
  }

  healthy(): true | string {
    return this.line?.healthy?.() ?? true;
  }

  async close(): Promise<void> {
    const line = this.line;
    if (!line) return;
    process.off('exit', this.offOnExit);
    this.line = null;
    line.writeSync(this.level('off'));
    this.state = 'off';
    // sysfs: the line stays exported on purpose: unexporting turns the pin back into a floating
    // input on the Pi's pin controllers, and a relay module without a pull resistor could then
    // switch on. The next open() takes over the exported line. Character device: the line was
    // driven off by a one-shot gpioset and is released (its level then is the kernel driver's
    // choice, hence the pull resistor docs/OPERATIONS.md asks for).
  }

  /** The physical level for a relay state. */
  private level(state: RelayState): Level {
    const on = state === 'on';
    return (on !== this.options.activeLow ? 1 : 0) as Level;
  }
}
