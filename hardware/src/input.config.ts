import { ConfigError } from '@makerspace/shared/agent';
import { z } from 'zod';
import { GpioInput } from './gpio-input.driver.js';
import type { HardwareLogger } from './hardware.errors.js';
import type { Input } from './input.js';
import { isPowerMeter } from './power-meter.js';
import { PowerInput } from './power-input.driver.js';
import { SimulatedInputsFile } from './simulated-inputs.driver.js';

export const inputKinds = ['busy', 'interlock', 'doorContact', 'exitButton'] as const;
export type InputKind = (typeof inputKinds)[number];

export const SimulatedInputSource = z.strictObject({ kind: z.literal('simulated') });

export const GpioInputSource = z.strictObject({
  kind: z.literal('gpio'),
  /** BCM numbering, as the relay's relayPin. */
  pin: z.int().min(0).max(27),
  /**
   * Required, no default: a contact switching to ground with the pull-up is active low; a
   * sensor that drives the line high when it senses is active high.
   */
  activeLow: z.boolean({
    error: (issue) =>
      issue.input === undefined
        ? 'required: true for a contact that pulls the line to ground (with bias pull-up), false for one that drives it high'
        : 'true or false',
  }),
  /** The Pi's internal resistor: pull-up for a dry contact to ground (the usual wiring). */
  bias: z.enum(['pull-up', 'pull-down', 'disable', 'as-is']).default('pull-up'),
  /** A level counts once it has held this long (contact bounce). */
  debounceMs: z.int().min(0).max(10_000).default(50),
  gpioChip: z
    .string()
    .regex(/^gpiochip\d+$/, 'a chip name such as gpiochip0')
    .optional(),
});

export const PowerInputSource = z
  .strictObject({
    kind: z.literal('power'),
    /** Busy above this reading of the relay's power meter (a smart plug), in watts. */
    thresholdWatts: z.number().positive().max(100_000),
    /** Idle again only below thresholdWatts - hysteresisWatts. */
    hysteresisWatts: z.number().nonnegative().max(100_000).default(2),
  })
  .refine((s) => s.hysteresisWatts < s.thresholdWatts, {
    message: 'hysteresisWatts must be less than thresholdWatts',
    path: ['hysteresisWatts'],
  });

export const InputSource = z.discriminatedUnion('kind', [
  SimulatedInputSource,
  GpioInputSource,
  PowerInputSource,
]);

/** One entry of the agent config's `inputs`. */
export const InputConfig = z
  .strictObject({
    /** The key in the simulated inputs file, and how logs name the input. */
    name: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, "_" and "-", at most 40'),
    kind: z.enum(inputKinds),
    /** What members and admins read ("Lid", "Extraction"); the name when absent. */
    label: z.string().trim().min(1).max(60).optional(),
    /** Where the state comes from; the simulated hardware's inputs file when absent. */
    source: InputSource.optional(),
    /** doorContact: an open door reports "held open" after this many seconds. */
    heldOpenSeconds: z.int().min(1).max(86_400).optional(),
  })
  .superRefine((input, ctx) => {
    if (input.source?.kind === 'power' && input.kind !== 'busy')
      ctx.addIssue({
        code: 'custom',
        path: ['source'],
        message: 'a power reading can only tell busy from idle (kind busy)',
      });
    if (input.heldOpenSeconds !== undefined && input.kind !== 'doorContact')
      ctx.addIssue({ code: 'custom', path: ['heldOpenSeconds'], message: 'only for kind doorContact' });
  });
export type InputConfig = z.output<typeof InputConfig>;
export type InputConfigInput = z.input<typeof InputConfig>;

/** A door stays open this long before a door contact reports it held open. */
export const DEFAULT_HELD_OPEN_SECONDS = 60;

export interface CreateInputsOptions {
  inputs: readonly InputConfig[];
  /** The relay the agent drives: a source `power` reads it (it must be a PowerMeter). */
  relay: unknown;
  /** The simulated hardware's inputs file (`hardware.inputsFile`), if any. */
  inputsFile?: string;
  /** Where the config came from, for errors. */
  source: string;
  env?: NodeJS.ProcessEnv;
  logger?: HardwareLogger;
}

/**
 * Builds the inputs the config names (nothing opened yet). What only the built hardware can
 * tell (a power source on a relay that measures nothing) is a ConfigError naming the entry.
 */
export function createInputs(options: CreateInputsOptions): Map<string, Input> {
  const problems: string[] = [];
  const built = new Map<string, Input>();
  const file = options.inputsFile
    ? new SimulatedInputsFile({ file: options.inputsFile, logger: options.logger })
    : null;
  options.inputs.forEach((config, index) => {
    const source = config.source ?? { kind: 'simulated' as const };
    const at = `inputs.${index}.source`;
    switch (source.kind) {
      case 'simulated':
        if (!file) {
          problems.push(
            `${at}: the input "${config.name}" names no source, and the simulated hardware's inputs file is not set (hardware.inputsFile)`,
          );
          return;
        }
        built.set(config.name, file.input(config.name));
        return;
      case 'gpio':
        built.set(config.name, new GpioInput({ ...source, env: options.env, logger: options.logger }));
        return;
      case 'power':
        if (!isPowerMeter(options.relay)) {
          problems.push(
            `${at}: kind power reads the relay's power meter, and this relay (hardware.kind) measures no power; use a smart plug or a gpio source`,
          );
          return;
        }
        built.set(
          config.name,
          new PowerInput({
            meter: options.relay,
            thresholdWatts: source.thresholdWatts,
            hysteresisWatts: source.hysteresisWatts,
          }),
        );
        return;
    }
  });
  if (problems.length) throw new ConfigError(options.source, problems);
  return built;
}
