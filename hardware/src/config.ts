import { KeyType, parseConfig } from '@makerspace/shared/agent';
import { z } from 'zod';
import { DEFAULT_DEBOUNCE_MS } from './card-debounce.js';
import type { CardReader } from './card-reader.js';
import type { Display } from './display.js';
import { DEFAULT_SYSFS_GPIO_ROOT } from './gpio-chip.resolver.js';
import { GpioRelay } from './gpio-relay.driver.js';
import type { HardwareLogger } from './hardware.errors.js';
import { LcdI2cDisplay } from './lcd-i2c.display.js';
import type { Relay } from './relay.js';
import { Rdm6300Reader, SerialLinesReader } from './serial-card-reader.driver.js';
import { SerialRelay } from './serial-relay.driver.js';
import { ShellyGen2Relay } from './shelly-gen2.driver.js';
import { SimulatedCardReader } from './simulated-card-reader.driver.js';
import { SimulatedDisplay } from './simulated-display.driver.js';
import { SimulatedRelay } from './simulated-relay.driver.js';
import { TasmotaRelay } from './tasmota.driver.js';

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

// Smart plugs: how they are watched (smart-plug.relay.ts). A renewal every poll keeps the plug's
// auto-off timer from running out, so a poll must come well within it.
const smartPlugTiming = {
  /** The plug's own auto-off, renewed while on: it cuts the power this long after the agent is gone. */
  deadManSeconds: z.int().min(0).max(3600).default(60),
  pollSeconds: z.number().min(0.1).max(600).default(5),
  timeoutMs: z.int().min(100).max(60_000).default(3000),
  failuresAllowed: z.int().min(1).max(10).default(2),
  /** File holding the password (first line); not the password itself, so the config can be shared. */
  passwordFile: z.string().min(1).optional(),
};
const pollWithinDeadMan = (config: { deadManSeconds: number; pollSeconds: number }, ctx: z.RefinementCtx) => {
  if (config.deadManSeconds > 0 && config.pollSeconds * 2 > config.deadManSeconds) {
    ctx.addIssue({
      code: 'custom',
      path: ['pollSeconds'],
      message: `must be at most half of deadManSeconds (${config.deadManSeconds}), or the plug's auto-off cuts a running machine`,
    });
  }
};
const hostAndPort = z
  .string()
  .regex(
    /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/,
    'a host name or address, with :port if not 80 (e.g. 192.168.1.40 or shelly-laser.local)',
  );

export const ShellyRelayConfig = z
  .strictObject({
    kind: z.literal('shelly'),
    host: hostAndPort,
    /** The Switch component: 0 on plugs, 0..n on multi-channel relays. */
    switchId: z.int().min(0).max(15).default(0),
    ...smartPlugTiming,
  })
  .superRefine(pollWithinDeadMan);

export const TasmotaRelayConfig = z
  .strictObject({
    kind: z.literal('tasmota'),
    /** The broker the plug publishes to (its MqttHost/MqttPort). */
    broker: z.url({
      protocol: /^(mqtt|mqtts|ws|wss)$/,
      error: 'must be a URL with scheme mqtt, mqtts, ws or wss',
    }),
    /** The plug's MQTT Topic. */
    topic: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[^#+/\s]+$/, 'the plug\'s Topic setting: no spaces, "/", "#" or "+"'),
    fullTopic: z
      .string()
      .min(1)
      .refine((v) => v.includes('%prefix%') && v.includes('%topic%'), 'must contain %prefix% and %topic%')
      .default('%prefix%/%topic%/'),
    relay: z.int().min(1).max(8).default(1),
    username: z.string().min(1).optional(),
    ...smartPlugTiming,
  })
  .superRefine(pollWithinDeadMan);

/** The relay (door strike or machine power) of the agent's `hardware` config. */
export const RelayConfig = z.discriminatedUnion('kind', [
  SimulatedRelayConfig,
  GpioRelayConfig,
  SerialRelayConfig,
  ShellyRelayConfig,
  TasmotaRelayConfig,
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

// The common modules: 16x2 and 20x4 (also 16x1, 16x4, 20x2, 40x2).
const lcdColumns = z.union([z.literal(8), z.literal(16), z.literal(20), z.literal(24), z.literal(40)], {
  error: "8, 16, 20, 24 or 40 (the module's characters per row)",
});
const lcdRows = z.union([z.literal(1), z.literal(2), z.literal(4)], { error: '1, 2 or 4' });

export const LcdI2cDisplayConfig = z.strictObject({
  kind: z.literal('lcd-i2c'),
  /** /dev/i2c-<bus>; 1 on the Pi's header pins 3 (SDA) and 5 (SCL). */
  bus: z.int().min(0).max(31).default(1),
  /** 7-bit address: 39 (0x27) for PCF8574 backpacks, 63 (0x3F) for PCF8574A ones. */
  address: z.int().min(0x03).max(0x77).default(0x27),
  columns: lcdColumns.default(16),
  rows: lcdRows.default(2),
  backlight: z.boolean().default(true),
});

export const SimulatedDisplayConfig = z.strictObject({
  kind: z.literal('simulated'),
  /** JSON file holding {"lines": [...], "at": ISO time}. */
  file: z.string().min(1),
  columns: lcdColumns.default(16),
  rows: lcdRows.default(2),
});

/** The agent's optional `display` at the reader. */
export const DisplayConfig = z.discriminatedUnion('kind', [LcdI2cDisplayConfig, SimulatedDisplayConfig]);
export type DisplayConfig = z.output<typeof DisplayConfig>;
export type DisplayConfigInput = z.input<typeof DisplayConfig>;

// Nested under the agent config's key, so error paths read as in the file ("hardware.relayPin").
const RelayConfigAt = z.object({ hardware: RelayConfig });
const CardReaderConfigAt = z.object({ cardReader: CardReaderConfig });
const DisplayConfigAt = z.object({ display: DisplayConfig });

/** Builds the display a config describes; open() opens it (i2c-bus loads then). */
export function createDisplay(config: DisplayConfigInput, logger?: HardwareLogger): Display {
  const { display: parsed } = parseConfig(DisplayConfigAt, { display: config }, 'agent config');
  switch (parsed.kind) {
    case 'lcd-i2c':
      return new LcdI2cDisplay({ ...parsed, logger });
    case 'simulated':
      return new SimulatedDisplay(parsed);
  }
}

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
    case 'shelly':
      return new ShellyGen2Relay({ ...parsed, logger });
    case 'tasmota':
      return new TasmotaRelay({ ...parsed, logger });
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
