import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GpioBackend, GpioRelay, createRelay } from '@makerspace/hardware';
import { describe, expect, it, vi } from 'vitest';
import { useTeardown } from './helpers/teardown.js';

const defer = useTeardown();

function piSysfs(): string {
  const root = mkdtempSync(join(tmpdir(), 'makerspace-gpio-'));
  defer(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'gpiochip512'));
  writeFileSync(join(root, 'gpiochip512', 'label'), 'pinctrl-bcm2711\n');
  writeFileSync(join(root, 'gpiochip512', 'base'), '512\n');
  writeFileSync(join(root, 'gpiochip512', 'ngpio'), '58\n');
  return root;
}

/** A stand-in for onoff that records the physical level of each exported line. */
function fakeBackend(accessible = true) {
  const levels = new Map<number, number[]>();
  const backend: GpioBackend = {
    accessible,
    output(gpio, initial) {
      levels.set(gpio, [initial]);
      const history = levels.get(gpio)!;
      return {
        write: async (level) => {
          history.push(level);
        },
        writeSync: (level) => {
          history.push(level);
        },
      };
    },
  };
  return { backend, levels };
}

describe('GPIO relay', () => {
  it('active high: exports the resolved line low (off), drives it high for on, low on close', async () => {
    const { backend, levels } = fakeBackend();
    const relay = new GpioRelay({
      relayPin: 17,
      activeLow: false,
      sysfsRoot: piSysfs(),
      loadBackend: async () => backend,
    });
    defer(() => relay.close());
    await relay.open();
    await relay.set('on');
    expect(relay.get()).toBe('on');
    await relay.set('off');
    await relay.set('on');
    await relay.close();
    expect(relay.get()).toBe('off');
    expect(levels.get(529)).toEqual([0, 1, 0, 1, 0]);
  });

  it('active low: off is the high level from the very first moment', async () => {
    const { backend, levels } = fakeBackend();
    const relay = new GpioRelay({
      relayPin: 4,
      activeLow: true,
      sysfsRoot: piSysfs(),
      loadBackend: async () => backend,
    });
    defer(() => relay.close());
    await relay.open();
    await relay.set('on');
    await relay.close();
    await relay.close();
    expect(levels.get(516)).toEqual([1, 0, 1]);
  });

  it('switches off if the process exits without close()', async () => {
    const { backend, levels } = fakeBackend();
    const relay = new GpioRelay({
      relayPin: 17,
      activeLow: true,
      sysfsRoot: piSysfs(),
      loadBackend: async () => backend,
    });
    defer(() => relay.close());
    const before = process.listeners('exit');
    await relay.open();
    await relay.set('on');
    // Call only the relay's own exit listener: emitting 'exit' would reach the test runner's too.
    const added = process.listeners('exit').filter((listener) => !before.includes(listener));
    expect(added).toHaveLength(1);
    (added[0] as (code: number) => void)(1);
    expect(levels.get(529)!.at(-1)).toBe(1);
    await relay.close();
    expect(process.listeners('exit')).toEqual(before);
  });

  it('refuses to switch before open', async () => {
    const relay = new GpioRelay({
      relayPin: 17,
      activeLow: false,
      sysfsRoot: piSysfs(),
      loadBackend: async () => fakeBackend().backend,
    });
    await expect(relay.set('on')).rejects.toThrow(/before open/);
  });

  it('says GPIO is not accessible and names the alternative', async () => {
    const relay = new GpioRelay({
      relayPin: 17,
      activeLow: false,
      sysfsRoot: piSysfs(),
      loadBackend: async () => fakeBackend(false).backend,
    });
    await expect(relay.open()).rejects.toMatchObject({
      code: 'gpio-unavailable',
      message: expect.stringMatching(/permission denied.*"serial-relay"/),
    });
  });

  it('loads onoff only when a GPIO relay opens, and explains when it cannot load', async () => {
    vi.resetModules();
    vi.doMock('onoff', () => {
      throw new Error('epoll.node: cannot open shared object file');
    });
    defer(() => vi.doUnmock('onoff'));
    // Importing the package and building the relay must work on a machine where onoff cannot load.
    const hardware = await import('@makerspace/hardware');
    const relay = hardware.createRelay({ kind: 'gpio', relayPin: 17, activeLow: true, sysfsRoot: piSysfs() });
    await expect(relay.open()).rejects.toMatchObject({
      code: 'gpio-unavailable',
      message: expect.stringMatching(/onoff module could not load.*"serial-relay"/),
    });
  });

  // Only where there is no real sysfs GPIO: on a Pi this would export a real pin.
  it.skipIf(existsSync('/sys/class/gpio'))(
    'with the real onoff on a machine without sysfs GPIO, open() explains why',
    async () => {
      const relay = createRelay({ kind: 'gpio', relayPin: 17, activeLow: true, sysfsRoot: piSysfs() });
      await expect(relay.open()).rejects.toMatchObject({ code: 'gpio-unavailable' });
      const defaultRoot = createRelay({ kind: 'gpio', relayPin: 17, activeLow: true });
      await expect(defaultRoot.open()).rejects.toThrow(/\/sys\/class\/gpio does not exist.*serial-relay/);
    },
  );
});
