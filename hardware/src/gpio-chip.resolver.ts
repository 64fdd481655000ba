import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HardwareError } from './hardware.errors.js';

export const DEFAULT_SYSFS_GPIO_ROOT = '/sys/class/gpio';

/**
 * Labels of the Raspberry Pi chips that drive the 40-pin header, in the order we prefer them.
 * A Pi 5 also has SoC GPIO chips, but its header is wired to RP1, so RP1 comes first.
 */
export const PI_PIN_CONTROLLER_LABELS = ['pinctrl-rp1', 'pinctrl-bcm2711', 'pinctrl-bcm2835'] as const;

/** One `gpiochipN` directory of sysfs. */
export interface GpioChip {
  name: string;
  label: string;
  base: number;
  ngpio: number;
}

/** Lists the chips under a sysfs GPIO root; unreadable chip directories are skipped. */
export function readGpioChips(sysfsRoot: string): GpioChip[] {
  const chips: GpioChip[] = [];
  for (const name of readdirSync(sysfsRoot)) {
    if (!/^gpiochip\d+$/.test(name)) continue;
    try {
      const read = (file: string) => readFileSync(join(sysfsRoot, name, file), 'utf8').trim();
      const base = Number.parseInt(read('base'), 10);
      const ngpio = Number.parseInt(read('ngpio'), 10);
      if (Number.isNaN(base) || Number.isNaN(ngpio)) continue;
      chips.push({ name, label: read('label'), base, ngpio });
    } catch {
      // A half-populated chip directory (driver unloading) is not ours to use.
    }
  }
  return chips.sort((a, b) => a.base - b.base);
}

/**
 * Picks the sysfs GPIO number of a BCM pin from the chip list. Since kernel 6.6 the Pi's pins
 * start at the pin controller's base (512 and up on Raspberry Pi OS Bookworm) instead of 0,
 * so BCM 17 is sysfs 529 there. Kernels that number from 0 and name the chip differently still
 * work through the base-0 fallback.
 */
export function pickGpioNumber(chips: readonly GpioChip[], bcmPin: number, chipLabel?: string): number {
  const labels: readonly string[] = chipLabel ? [chipLabel] : PI_PIN_CONTROLLER_LABELS;
  const chip =
    labels.map((label) => chips.find((c) => c.label === label)).find((c) => c !== undefined) ??
    (chipLabel ? undefined : chips.find((c) => c.base === 0));
  if (!chip) {
    const found = chips.length
      ? chips.map((c) => `${c.name} "${c.label}" base ${c.base}`).join(', ')
      : 'none';
    throw new HardwareError(
      'gpio-pin',
      `GPIO relay: no GPIO chip labelled ${labels.map((l) => `"${l}"`).join(' or ')} ` +
        `(chips found: ${found}). Set "gpioChipLabel" to the label of the chip that drives the relay pin.`,
    );
  }
  if (bcmPin < 0 || bcmPin >= chip.ngpio) {
    throw new HardwareError(
      'gpio-pin',
      `GPIO relay: pin ${bcmPin} is outside ${chip.name} "${chip.label}", which has ${chip.ngpio} lines`,
    );
  }
  return chip.base + bcmPin;
}

/** Resolves a BCM pin to its sysfs GPIO number by reading `<sysfsRoot>/gpiochip*`. */
export function resolveSysfsGpio(
  bcmPin: number,
  options: { sysfsRoot?: string; chipLabel?: string } = {},
): number {
  const root = options.sysfsRoot ?? DEFAULT_SYSFS_GPIO_ROOT;
  if (!existsSync(root)) throw gpioUnavailable(`${root} does not exist`);
  return pickGpioNumber(readGpioChips(root), bcmPin, options.chipLabel);
}

/** The error for machines without sysfs GPIO, naming what to do instead. */
export function gpioUnavailable(why: string, cause?: unknown): HardwareError {
  return new HardwareError(
    'gpio-unavailable',
    `GPIO relay: sysfs GPIO is not available (${why}). On a Raspberry Pi, install Debian's libgpiod ` +
      'tools (apt-get install gpiod) so the agent uses the GPIO character device, with a user in the ' +
      '"gpio" group; or use a USB relay board with hardware ' +
      '{"kind": "serial-relay", "path": "/dev/ttyUSB0", "channel": 1}.',
    { cause },
  );
}
