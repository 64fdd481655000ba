import { KeyType, parseConfig } from '@makerspace/shared/agent';
import { z } from 'zod';
import { DEFAULT_DEBOUNCE_MS } from './card-debounce.js';
import type { CardReader } from './card-reader.js';
import { DEFAULT_SYSFS_GPIO_ROOT } from './gpio-chip.resolver.js';
import { GpioRelay } from './gpio-relay.driver.js';
import type { HardwareLogger } from './hardware.errors.js';
import type { Relay } from './relay.js';
import { Rdm6300Reader, SerialLinesReader } from './serial-card-reader.driver.js';
import { SerialRelay } from './serial-relay.driver.js';
import { SimulatedCardReader } from './simulated-card-reader.driver.js';
import { SimulatedRelay } from './simulated-relay.driver.js';

// Strict objects: a misspelt key ("activelow") is reported instead of silently using a default.
const devicePath = z.string().min(1, 'a device path such as /dev/ttyUSB0');
const baudRate = z.int().positive().default(9600);
const debounceMs = z.int().min(0).max(60_000).default(DEFAULT_DEBOUNCE_MS);

export const SimulatedRelayConfig = z.strictObject({
  kind: z.literal('simulated'),
  /** JSON file holding {"relay": "on"|"off", "since": ISO time}. */
  stateFile: z.string().min(1),
  /** JSON file holding the inputs' states by name ({"busy": true, "lid": false}), read on change. */
  inputsFile: z.string().min(1).optional(),
});

export const GpioRelayConfig = z.strictObject({
  kind: z.literal('gpio'),
  /** BCM numbering (GPIO17 is 17), the numbers on Pi pinout charts, not physical pin numbers. */
  relayPin: z.int().min(0).max(27),
  /**
   * Required, no default: a wrong guess swaps on and off (most cheap relay modules are active low),
   * so the operator states the board's idle level.
   */
  activeLow: z.boolean({
    error: (issue) =>
      issue.input === undefined
        ? 'required: true for relay boards that switch on when the pin is low (most opto-isolated ' +
          'modules, "IN" pulled to ground), false for boards that switch on when it is high'
        : 'true or false',
  }),
  /**
   * `auto`: the GPIO character device (libgpiod's tools, line "GPIO<relayPin>") where the kernel
   * has it and `gpiod` is installed, sysfs otherwise.
   */
  gpioInterface: z.enum(['auto', 'chardev', 'sysfs']).default('auto'),
  /** Character device: the chip to find the line on (e.g. "gpiochip0") when its name is on several. */
  gpioChip: z
    .string()
    .regex(/^gpiochip\d+$/, 'a chip name such as gpiochip0')
    .optional(),
  /** sysfs: label of the GPIO chip to use when it is not one of the Pi's pin controllers. */
  gpioChipLabel: z.string().min(1).optional(),
  sysfsRoot: z.string().min(1).default(DEFAULT_SYSFS_GPIO_ROOT),
});

export const SerialRelayConfig = z.strictObject({
  kind: z.literal('serial-relay'),
  path: devicePath,
  channel: z.int().min(1).max(8),
  baudRate,
});

/** The relay (door strike or machine power) of the agent's `hardware` config. */
export const RelayConfig = z.discriminatedUnion('kind', [
  SimulatedRelayConfig,
  GpioRelayConfig,
  SerialRelayConfig,
]);
export type RelayConfig = z.output<typeof RelayConfig>;
export type RelayConfigInput = z.input<typeof RelayConfig>;

export const SimulatedCardReaderConfig = z.strictObject({ kind: z.literal('simulated') });

export const Rdm6300ReaderConfig = z.strictObject({
  kind: z.literal('rdm6300'),
  path: devicePath,
  baudRate,
  debounceMs,
});

export const SerialLinesReaderConfig = z.strictObject({
  kind: z.literal('serial-lines'),
  path: devicePath,
  baudRate,
  keyType: KeyType.default('em4102'),
  debounceMs,
});

/** The agent's `cardReader` config. */
export const CardReaderConfig = z.discriminatedUnion('kind', [
  SimulatedCardReaderConfig,
  Rdm6300ReaderConfig,
  SerialLinesReaderConfig,
]);
export type CardReaderConfig = z.output<typeof CardReaderConfig>;
export type CardReaderConfigInput = z.input<typeof CardReaderConfig>;

// Nested under the agent config's key, so error paths read as in the file ("hardware.relayPin").
const RelayConfigAt = z.object({ hardware: RelayConfig });
const CardReaderConfigAt = z.object({ cardReader: CardReaderConfig });

/**
 * Builds the relay a config describes. Nothing is opened yet: call open(). The config is validated
 * here too (a ConfigError listing every problem), so callers may pass parsed or raw config.
 * GPIO and serial libraries load on open(), so this works on machines without them.
 */
export function createRelay(config: RelayConfigInput, logger?: HardwareLogger): Relay {
  const { hardware: parsed } = parseConfig(RelayConfigAt, { hardware: config }, 'agent config');
  switch (parsed.kind) {
    case 'simulated':
      return new SimulatedRelay({ stateFile: parsed.stateFile, logger });
    case 'gpio':
      return new GpioRelay({ ...parsed, logger });
    case 'serial-relay':
      return new SerialRelay({
        path: parsed.path,
        channel: parsed.channel,
        baudRate: parsed.baudRate,
        logger,
      });
  }
}

/** Builds the card reader a config describes; start() opens it. The simulated one has inject(). */
export function createCardReader(config: { kind: 'simulated' }, logger?: HardwareLogger): SimulatedCardReader;
export function createCardReader(config: CardReaderConfigInput, logger?: HardwareLogger): CardReader;
export function createCardReader(config: CardReaderConfigInput, logger?: HardwareLogger): CardReader {
  const { cardReader: parsed } = parseConfig(CardReaderConfigAt, { cardReader: config }, 'agent config');
  switch (parsed.kind) {
    case 'simulated':
      return new SimulatedCardReader({ logger });
    case 'rdm6300':
      return new Rdm6300Reader({ ...parsed, logger });
    case 'serial-lines':
      return new SerialLinesReader({ ...parsed, logger });
  }
}
