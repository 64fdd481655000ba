import { readFileSync } from 'node:fs';
import { ConfigError, parseConfig } from '@makerspace/shared';
import { z } from 'zod';

/** Home Assistant discovery towards the operator's own MQTT broker (docs/OPERATIONS.md). */
export interface HomeAssistantSettings {
  /** HUB_HA_MQTT_URL: mqtt://, mqtts://, ws:// or wss://, with user:password when the broker needs it. */
  mqttUrl: string;
  /** API token of the member Home Assistant acts as (HUB_HA_TOKEN or HUB_HA_TOKEN_FILE). Never logged. */
  token: string;
  /** HUB_HA_DISCOVERY_PREFIX, "homeassistant" by default (Home Assistant's own default). */
  discoveryPrefix: string;
  /** HUB_HA_TOPIC_PREFIX: root of the hub's state and command topics, "makerspace" by default. */
  base: string;
  /** How often the resource list is compared with what was announced (new and deleted resources). */
  resyncMs?: number;
}

const topicPrefix = z
  .string()
  .min(1)
  .regex(/^[^#+\s]+$/, 'a topic prefix without spaces, "+" or "#"')
  .refine((v) => !v.startsWith('/') && !v.endsWith('/'), 'no leading or trailing "/"');

const Env = z
  .object({
    HUB_HA_MQTT_URL: z
      .url({ protocol: /^(mqtts?|wss?)$/, error: 'expected mqtt://host:1883, mqtts://, ws:// or wss://' })
      .optional(),
    HUB_HA_TOKEN: z.string().min(1).optional(),
    HUB_HA_TOKEN_FILE: z.string().min(1).optional(),
    HUB_HA_DISCOVERY_PREFIX: topicPrefix.default('homeassistant'),
    HUB_HA_TOPIC_PREFIX: topicPrefix.default('makerspace'),
  })
  .superRefine((v, issues) => {
    if (v.HUB_HA_TOKEN && v.HUB_HA_TOKEN_FILE)
      issues.addIssue({
        code: 'custom',
        path: ['HUB_HA_TOKEN'],
        message: 'set HUB_HA_TOKEN or HUB_HA_TOKEN_FILE, not both',
      });
    else if (v.HUB_HA_MQTT_URL && !v.HUB_HA_TOKEN && !v.HUB_HA_TOKEN_FILE)
      issues.addIssue({
        code: 'custom',
        path: ['HUB_HA_TOKEN'],
        message:
          'required with HUB_HA_MQTT_URL: the API token of the member Home Assistant acts as (or HUB_HA_TOKEN_FILE)',
      });
  });

/** Reads the Home Assistant settings; undefined when HUB_HA_MQTT_URL is not set. */
export function homeAssistantFromEnv(env: NodeJS.ProcessEnv): HomeAssistantSettings | undefined {
  const e = parseConfig(Env, env, 'environment');
  if (!e.HUB_HA_MQTT_URL) return undefined;
  let token = e.HUB_HA_TOKEN ?? '';
  if (e.HUB_HA_TOKEN_FILE) {
    try {
      token = readFileSync(e.HUB_HA_TOKEN_FILE, 'utf8').trim();
    } catch (err) {
      throw new ConfigError('environment', [
        `HUB_HA_TOKEN_FILE: cannot read ${e.HUB_HA_TOKEN_FILE} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      ]);
    }
    if (!token) throw new ConfigError('environment', [`HUB_HA_TOKEN_FILE: ${e.HUB_HA_TOKEN_FILE} is empty`]);
  }
  return {
    mqttUrl: e.HUB_HA_MQTT_URL,
    token,
    discoveryPrefix: e.HUB_HA_DISCOVERY_PREFIX,
    base: e.HUB_HA_TOPIC_PREFIX,
  };
}
