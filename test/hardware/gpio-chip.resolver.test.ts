import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HardwareError, pickGpioNumber, readGpioChips, resolveSysfsGpio } from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';
import { useTeardown } from './helpers/teardown.js';

const defer = useTeardown();

/** Builds a fake /sys/class/gpio with the given chips. */
function fakeSysfs(chips: Array<{ name: string; label: string; base: number; ngpio: number }>): string {
  const root = mkdtempSync(join(tmpdir(), 'makerspace-gpio-'));
  defer(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, 'export'), '');
  for (const chip of chips) {
    mkdirSync(join(root, chip.name));
    writeFileSync(join(root, chip.name, 'label'), `${chip.label}\n`);
    writeFileSync(join(root, chip.name, 'base'), `${chip.base}\n`);
    writeFileSync(join(root, chip.name, 'ngpio'), `${chip.ngpio}\n`);
  }
  return root;
}

describe('BCM pin to sysfs GPIO number', () => {
  it('adds the pin controller base on a Pi 4 with kernel 6.6+ (Bookworm): BCM 17 is 529', () => {
    const root = fakeSysfs([
      { name: 'gpiochip512', label: 'pinctrl-bcm2711', base: 512, ngpio: 58 },
      { name: 'gpiochip570', label: 'raspberrypi-exp-gpio', base: 570, ngpio: 8 },
    ]);
    expect(resolveSysfsGpio(17, { sysfsRoot: root })).toBe(529);
  });

  it('uses the RP1 chip on a Pi 5, not the SoC chips before it', () => {
    const root = fakeSysfs([
      { name: 'gpiochip512', label: '107d508500.gpio', base: 512, ngpio: 32 },
      { name: 'gpiochip544', label: '107d517c00.gpio', base: 544, ngpio: 15 },
      { name: 'gpiochip571', label: 'pinctrl-rp1', base: 571, ngpio: 54 },
    ]);
    expect(resolveSysfsGpio(17, { sysfsRoot: root })).toBe(588);
  });

  it('keeps BCM numbers on older kernels where the Pi chip starts at 0', () => {
    const root = fakeSysfs([{ name: 'gpiochip0', label: 'pinctrl-bcm2835', base: 0, ngpio: 54 }]);
    expect(resolveSysfsGpio(4, { sysfsRoot: root })).toBe(4);
  });

  it('falls back to a chip at base 0 when no Pi pin controller is labelled', () => {
    const root = fakeSysfs([
      { name: 'gpiochip0', label: 'some-board-gpio', base: 0, ngpio: 32 },
      { name: 'gpiochip100', label: 'other', base: 100, ngpio: 8 },
    ]);
    expect(resolveSysfsGpio(5, { sysfsRoot: root })).toBe(5);
  });

  it('uses the chip label the operator names', () => {
    const root = fakeSysfs([
      { name: 'gpiochip0', label: 'pinctrl-bcm2835', base: 0, ngpio: 54 },
      { name: 'gpiochip600', label: 'my-hat', base: 600, ngpio: 16 },
    ]);
    expect(resolveSysfsGpio(3, { sysfsRoot: root, chipLabel: 'my-hat' })).toBe(603);
  });

  it('names the chips it found when none fits, and suggests gpioChipLabel', () => {
    const root = fakeSysfs([{ name: 'gpiochip300', label: 'i2c-expander', base: 300, ngpio: 8 }]);
    expect(() => resolveSysfsGpio(17, { sysfsRoot: root })).toThrow(
      /gpiochip300 "i2c-expander" base 300.*gpioChipLabel/,
    );
    expect(() => resolveSysfsGpio(17, { sysfsRoot: root, chipLabel: 'nope' })).toThrow(/"nope"/);
  });

  it('rejects a pin beyond the chip', () => {
    expect(() =>
      pickGpioNumber([{ name: 'gpiochip0', label: 'pinctrl-bcm2835', base: 0, ngpio: 54 }], 60),
    ).toThrow(/pin 60 is outside gpiochip0/);
  });

  it('says sysfs GPIO is missing and names the serial relay board instead', () => {
    let error: unknown;
    try {
      resolveSysfsGpio(17, { sysfsRoot: '/nonexistent/sys/class/gpio' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(HardwareError);
    expect((error as HardwareError).code).toBe('gpio-unavailable');
    expect((error as Error).message).toMatch(/\/nonexistent\/sys\/class\/gpio does not exist.*serial-relay/);
  });

  it('skips chip directories it cannot read and other entries', () => {
    const root = fakeSysfs([{ name: 'gpiochip512', label: 'pinctrl-bcm2835', base: 512, ngpio: 54 }]);
    mkdirSync(join(root, 'gpiochip600'));
    mkdirSync(join(root, 'gpio529'));
    expect(readGpioChips(root).map((c) => c.name)).toEqual(['gpiochip512']);
  });
});
