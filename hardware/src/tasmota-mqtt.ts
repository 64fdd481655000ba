/*
 * Pure parts of Tasmota's MQTT interface (Tasmota documentation: "MQTT" and "Commands", the
 * Power, PulseTime and Status commands, and the energy monitoring page): topic names, the
 * PulseTime encoding and the power readings in SENSOR and STATUS10 messages.
 */

/** A topic from Tasmota's FullTopic (`%prefix%/%topic%/` by default) and a command or message name. */
export function tasmotaTopic(
  fullTopic: string,
  prefix: 'cmnd' | 'stat' | 'tele',
  topic: string,
  name: string,
): string {
  const base = fullTopic.replaceAll('%prefix%', prefix).replaceAll('%topic%', topic);
  return `${base.endsWith('/') ? base : `${base}/`}${name}`;
}

/**
 * PulseTime's value for a number of seconds: 1..111 count tenths of a second, 112..64900 count
 * seconds plus 100 (PulseTime 160 is 60 s). 0 switches the pulse timer off.
 */
export function pulseTimeValue(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 64_800)
    throw new RangeError(`PulseTime covers 0 to 64800 s, got ${seconds}`);
  if (seconds === 0) return 0;
  if (seconds <= 11.1) return Math.max(1, Math.round(seconds * 10));
  return Math.round(seconds) + 100;
}

/** The seconds a PulseTime value stands for (the inverse of pulseTimeValue). */
export function pulseTimeSeconds(value: number): number {
  if (value <= 0) return 0;
  return value <= 111 ? value / 10 : value - 100;
}

/** `ON`/`OFF` (also `1`/`0`, `true`/`false` as some rules send) of a stat POWER message; null otherwise. */
export function parsePowerState(payload: string): boolean | null {
  const text = payload.trim().toUpperCase();
  if (text === 'ON' || text === '1' || text === 'TRUE') return true;
  if (text === 'OFF' || text === '0' || text === 'FALSE') return false;
  return null;
}

/**
 * The watts of a `tele/…/SENSOR` (`{"ENERGY":{"Power":12}}`) or `stat/…/STATUS10`
 * (`{"StatusSNS":{"ENERGY":{...}}}`) message. Multi-channel devices send Power as a list; `relay`
 * (1-based) picks the channel. undefined: the message holds no energy reading.
 */
export function parseEnergyPower(json: string, relay = 1): number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const root = value as Record<string, unknown>;
  const sensors = (
    typeof root.StatusSNS === 'object' && root.StatusSNS !== null ? root.StatusSNS : root
  ) as Record<string, unknown>;
  const energy = sensors.ENERGY as Record<string, unknown> | undefined;
  if (typeof energy !== 'object' || energy === null) return undefined;
  const power = Array.isArray(energy.Power) ? energy.Power[relay - 1] : energy.Power;
  return typeof power === 'number' && Number.isFinite(power) ? power : undefined;
}
