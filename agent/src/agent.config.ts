import { readFileSync, statSync } from 'node:fs';
import { CardReaderConfig, DisplayConfig, InputConfig, RelayConfig } from '@makerspace/hardware';
import { ConfigError, loadJsonConfig } from '@makerspace/shared/agent';
import { z } from 'zod';

/**
 * The key file must exist, be a regular file and be readable only by its owner (design section 3):
 * a bridge API key readable by other users of the Pi could open the door from anywhere.
 */
function checkApiKeyFile(file: string, ctx: z.RefinementCtx): void {
  let mode: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) {
      ctx.addIssue({ code: 'custom', message: `${file} is not a regular file` });
      return;
    }
    mode = stat.mode & 0o777;
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code}` });
    return;
  }
  if ((mode & 0o077) !== 0) {
    ctx.addIssue({
      code: 'custom',
      message: `${file} has mode ${mode.toString(8).padStart(4, '0')}; it holds the bridge API key and must not be readable by group or others (chmod 600 ${file})`,
    });
  }
}

/** Which control type each input kind belongs to: a busy machine, a door's contact or button. */
const inputControlTypes = {
  busy: ['machine'],
  interlock: ['machine'],
  doorContact: ['door'],
  exitButton: ['door'],
} as const;

/** What the inputs ask of the rest of the config, reported at the entry's path. */
function checkInputs(
  config: {
    controlType: 'door' | 'machine';
    hardware: { kind: string; inputsFile?: string };
    inputs: InputConfig[];
  },
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  config.inputs.forEach((input, index) => {
    if (seen.has(input.name))
      ctx.addIssue({
        code: 'custom',
        path: ['inputs', index, 'name'],
        message: `"${input.name}" is named twice`,
      });
    seen.add(input.name);
    const allowed: readonly string[] = inputControlTypes[input.kind];
    if (!allowed.includes(config.controlType))
      ctx.addIssue({
        code: 'custom',
        path: ['inputs', index, 'kind'],
        message: `an input of kind ${input.kind} belongs to a ${allowed.join(' or ')}, and controlType is ${config.controlType}`,
      });
    const simulated = (input.source?.kind ?? 'simulated') === 'simulated';
    if (simulated && (config.hardware.kind !== 'simulated' || !config.hardware.inputsFile))
      ctx.addIssue({
        code: 'custom',
        path: ['inputs', index, 'source'],
        message:
          config.hardware.kind === 'simulated'
            ? 'simulated inputs are read from hardware.inputsFile, which is not set'
            : 'required with real hardware: {"kind": "gpio", "pin": ..., "activeLow": ...} or {"kind": "power", "thresholdWatts": ...}',
      });
  });
}

const hubUrl = z.url({
  protocol: /^(mqtt|mqtts|ws|wss)$/,
  error: 'must be a URL with scheme mqtt, mqtts, ws or wss',
});

export const AgentConfig = z
  .strictObject({
    /**
     * The hub's MQTT endpoint, or a list of them (cluster mode, docs/SCALING.md): the agent moves to
     * the next when one fails. The hubs of a list share one scheme and path.
     */
    hub: z.union([hubUrl, z.array(hubUrl).min(1).max(16)]).superRefine((v, ctx) => {
      if (!Array.isArray(v)) return;
      const shapes = new Set(
        v.map((u) => {
          const url = new URL(u);
          return `${url.protocol}${url.pathname}`;
        }),
      );
      if (shapes.size > 1)
        ctx.addIssue({ code: 'custom', message: 'the hubs of a list must share one scheme and path' });
    }),
    resourceId: z.int().positive(),
    /** File holding the bridge API key (the MQTT password); mode 0600. */
    apiKeyFile: z.string().min(1).superRefine(checkApiKeyFile),
    controlType: z.enum(['door', 'machine']),
    /** How long a door stays open; the hub's bridge config overrides it once received. */
    pulseSeconds: z.number().positive().max(3600).default(5),
    /** Queue, saved bridge config, session file and the tap socket live here. */
    dataDir: z.string().min(1),
    keepaliveSeconds: z.int().min(1).max(3600).default(10),
    /** How long a card tap waits for the hub's decision before the agent decides offline. */
    accessTimeoutSeconds: z.number().positive().max(60).default(3),
    /** Logs not acknowledged within this time are sent again. */
    logAckTimeoutSeconds: z.number().positive().max(3600).default(10),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
    hardware: RelayConfig,
    cardReader: CardReaderConfig.optional(),
    /** Optional buzzer/LED: short beep on allowed, long beep on denied. Any relay kind drives it. */
    feedback: RelayConfig.optional(),
    /**
     * Optional character display at the reader: `{"kind": "lcd-i2c", "bus": 1, "address": 39,
     * "columns": 16, "rows": 2}` (HD44780 on a PCF8574 backpack) or `{"kind": "simulated", "file"}`.
     */
    display: DisplayConfig.optional(),
    /** Agent updates (docs/OPERATIONS.md, "Updating agents"). */
    updates: z
      .strictObject({
        /** The hub's HTTP address, for hubs reached over mqtt(s):// (pairing writes it). */
        hubUrl: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
        /** How long a new version has to connect to the hub before it is rolled back. */
        confirmSeconds: z.int().min(5).max(3600).optional(),
      })
      .optional(),
    /** Busy contacts, interlocks, door contacts, exit buttons (docs/HARDWARE.md, "Inputs"). */
    inputs: z.array(InputConfig).max(32).default([]),
  })
  .superRefine(checkInputs);
export type AgentConfig = z.output<typeof AgentConfig>;
export type AgentConfigInput = z.input<typeof AgentConfig>;

/** Loads and validates the config file; throws one ConfigError listing every problem with its path. */
export function loadAgentConfig(file: string): AgentConfig {
  return loadJsonConfig(AgentConfig, file);
}

/** Reads the bridge API key (first line, trimmed). The key itself never reaches a log or error. */
export function readApiKey(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [`apiKeyFile: cannot read: ${(err as NodeJS.ErrnoException).code}`]);
  }
  const key = text.split('\n')[0].trim();
  if (!key) throw new ConfigError(file, ['apiKeyFile: the file is empty']);
  return key;
}
