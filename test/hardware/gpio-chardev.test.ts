import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GpioRelay } from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';
import { type FakeLibgpiod, fakeLibgpiod } from './helpers/fake-libgpiod.js';
import { useTeardown } from './helpers/teardown.js';

const defer = useTeardown();

function fake(major: 1 | 2): FakeLibgpiod {
  const chip = fakeLibgpiod(major);
  defer(() => chip.cleanup());
  return chip;
}

function relayOn(
  chip: FakeLibgpiod,
  activeLow: boolean,
  extra: Partial<ConstructorParameters<typeof GpioRelay>[0]> = {},
) {
  const relay = new GpioRelay({
    relayPin: 17,
    activeLow,
    devDir: join(chip.dir, 'dev'),
    sysfsRoot: join(chip.dir, 'no-sysfs'),
    env: chip.env,
    ...extra,
  });
  defer(() => relay.close());
  return relay;
}

const setCalls = (chip: FakeLibgpiod) =>
  chip.calls().filter((call) => call.startsWith('gpioset') && !call.endsWith('--version'));

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('GPIO relay through the character device (fake libgpiod tools)', () => {
  it('libgpiod 1.6: finds GPIO17 by name, holds off, switches, and leaves it off on close', async () => {
    const chip = fake(1);
    const relay = relayOn(chip, true);
    await relay.open();
    expect(chip.holder('gpiochip0', 17)).toBe('gpioset');
    expect(chip.levels()).toEqual(['gpiochip0 17 1']);
    await relay.set('on');
    expect(relay.get()).toBe('on');
    expect(chip.holder('gpiochip0', 17)).toBe('gpioset');
    await relay.set('off');
    await relay.close();
    expect(chip.holder('gpiochip0', 17)).toBeNull();
    // Each new level goes through the off level first (the old holder's last act).
    expect(chip.levels()).toEqual([
      'gpiochip0 17 1',
      'gpiochip0 17 1',
      'gpiochip0 17 0',
      'gpiochip0 17 1',
      'gpiochip0 17 1',
      'gpiochip0 17 1',
    ]);
    expect(setCalls(chip)).toEqual([
      'gpioset --mode=signal gpiochip0 17=1',
      'gpioset --mode=exit gpiochip0 17=1',
      'gpioset --mode=signal gpiochip0 17=0',
      'gpioset --mode=exit gpiochip0 17=1',
      'gpioset --mode=signal gpiochip0 17=1',
      'gpioset --mode=exit gpiochip0 17=1',
    ]);
    expect(chip.calls()).toContain('gpioinfo gpiochip0');
  });

  it('libgpiod 2.1: same life cycle with the v2 options and its consumer name', async () => {
    const chip = fake(2);
    const relay = relayOn(chip, false);
    await relay.open();
    expect(chip.holder('gpiochip0', 17)).toBe('makerspace-agent');
    await relay.set('on');
    expect(chip.levels().at(-1)).toBe('gpiochip0 17 1');
    await relay.close();
    expect(chip.holder('gpiochip0', 17)).toBeNull();
    expect(chip.levels().at(-1)).toBe('gpiochip0 17 0');
    expect(setCalls(chip)).toEqual([
      'gpioset --consumer makerspace-agent --chip gpiochip0 17=0',
      'gpioset --consumer makerspace-agent --toggle 0 --chip gpiochip0 17=0',
      'gpioset --consumer makerspace-agent --chip gpiochip0 17=1',
      'gpioset --consumer makerspace-agent --toggle 0 --chip gpiochip0 17=0',
    ]);
    expect(chip.calls()).toContain('gpioinfo --chip gpiochip0');
  });

  it('auto: the character device where it and the tools are present, sysfs otherwise', async () => {
    const chip = fake(2);
    const auto = relayOn(chip, false, { gpioInterface: 'auto' });
    await auto.open();
    expect(chip.holder('gpiochip0', 17)).toBe('makerspace-agent');
    await auto.close();

    // No /dev/gpiochip*: sysfs (onoff), and libgpiod is not asked.
    const sysfsRoot = join(chip.dir, 'sysfs');
    mkdirSync(join(sysfsRoot, 'gpiochip512'), { recursive: true });
    writeFileSync(join(sysfsRoot, 'gpiochip512', 'label'), 'pinctrl-bcm2711\n');
    writeFileSync(join(sysfsRoot, 'gpiochip512', 'base'), '512\n');
    writeFileSync(join(sysfsRoot, 'gpiochip512', 'ngpio'), '58\n');
    const exported: number[] = [];
    const loadBackend = async () => ({
      accessible: true,
      output: (gpio: number) => {
        exported.push(gpio);
        return { write: async () => {}, writeSync: () => {} };
      },
    });
    const callsBefore = chip.calls().length;
    const old = relayOn(chip, false, { devDir: join(chip.dir, 'no-dev'), sysfsRoot, loadBackend });
    await old.open();
    expect(exported).toEqual([529]);
    expect(chip.calls().length).toBe(callsBefore);

    // Character device but no gpiod installed, sysfs present: sysfs, with a warning naming gpiod.
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (_: object, msg?: string) => warnings.push(msg ?? ''),
    };
    const noTools = relayOn(chip, false, {
      env: { ...chip.env, PATH: '/nonexistent' },
      sysfsRoot,
      loadBackend,
      logger,
    });
    await noTools.open();
    expect(exported).toEqual([529, 529]);
    expect(warnings).toEqual([
      'GPIO relay: libgpiod tools not installed (apt-get install gpiod); using sysfs GPIO',
    ]);
  });

  it('says how to free a line an earlier agent left exported through sysfs', async () => {
    const chip = fake(1);
    writeFileSync(join(chip.dir, 'held', 'gpiochip0-17'), `${process.pid} sysfs\n`);
    await expect(relayOn(chip, true).open()).rejects.toThrow(
      /in use by "sysfs": it is still exported through sysfs .*unexport/,
    );
  });

  it('says to install gpiod when the kernel has only the character device', async () => {
    const chip = fake(1);
    const relay = relayOn(chip, true, { env: { ...chip.env, PATH: '/nonexistent' } });
    await expect(relay.open()).rejects.toMatchObject({
      code: 'gpio-unavailable',
      message: expect.stringContaining('apt-get install gpiod'),
    });
  });

  it('Pi 5 on an early Bookworm kernel: the header is gpiochip4 (RP1), found by the line name', async () => {
    const rp1 = [
      ...Array.from({ length: 28 }, (_, i) => `GPIO${i}`),
      'PCIE_RP1_WAKE',
      'FAN_TACH',
      'HOST_SDA',
    ];
    const soc = ['-', '2712_BOOT_CS_N', '2712_BOOT_MISO', '2712_BOOT_MOSI', '2712_BOOT_SCLK', '', '', ''];
    const chip = fakeLibgpiod(1, { gpiochip0: soc, gpiochip1: [''], gpiochip4: rp1 });
    defer(() => chip.cleanup());
    const relay = relayOn(chip, true);
    await relay.open();
    await relay.set('on');
    expect(chip.holder('gpiochip4', 17)).toBe('gpioset');
    expect(chip.levels().at(-1)).toBe('gpiochip4 17 0');
  });

  it('refuses a line that another program holds, and a pin without a named line', async () => {
    const chip = fake(1);
    const other = relayOn(chip, true);
    await other.open();
    const second = relayOn(chip, true);
    await expect(second.open()).rejects.toThrow(
      'GPIO relay: gpiochip0 line 17 ("GPIO17") is in use by "gpioset"',
    );
    const unnamed = fakeLibgpiod(2, { gpiochip0: ['ID_SDA'], gpiochip1: [] });
    defer(() => unnamed.cleanup());
    await expect(relayOn(unnamed, true).open()).rejects.toThrow(/no GPIO line named "GPIO17"/);
  });

  it('switches off on a process exit without close()', async () => {
    const chip = fake(2);
    const relay = relayOn(chip, true);
    const before = process.listeners('exit');
    await relay.open();
    await relay.set('on');
    expect(chip.levels().at(-1)).toBe('gpiochip0 17 0');
    const added = process.listeners('exit').filter((listener) => !before.includes(listener));
    expect(added).toHaveLength(1);
    (added[0] as (code: number) => void)(1);
    expect(chip.levels().at(-1)).toBe('gpiochip0 17 1');
    expect(chip.holder('gpiochip0', 17)).toBeNull();
    expect(relay.healthy()).toBe(true);
  });

  it.each([1, 2] as const)(
    'libgpiod %i: after kill -9 of the agent the line goes off and is free for the next start',
    async (major) => {
      const chip = fake(major);
      const script = join(mkdtempSync(join(tmpdir(), 'makerspace-gpio-agent-')), 'agent.mjs');
      defer(() => rmSync(script, { force: true }));
      const hardware = fileURLToPath(new URL('../../hardware/dist/index.js', import.meta.url));
      writeFileSync(
        script,
        `import { GpioRelay } from ${JSON.stringify(hardware)};
const relay = new GpioRelay({ relayPin: 17, activeLow: true, gpioInterface: 'chardev', env: process.env });
await relay.open();
await relay.set('on');
console.log('on');
setInterval(() => {}, 1000);
`,
      );
      const agent = spawn(process.execPath, [script], {
        env: chip.env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      defer(() => agent.kill('SIGKILL'));
      await new Promise<void>((resolve) => agent.stdout.once('data', () => resolve()));
      expect(chip.levels().at(-1)).toBe('gpiochip0 17 0');
      const killedAt = Date.now();
      agent.kill('SIGKILL');
      await waitFor(() => chip.levels().at(-1) === 'gpiochip0 17 1' && chip.holder('gpiochip0', 17) === null);
      const offAfterMs = Date.now() - killedAt;
      expect(offAfterMs).toBeLessThan(3000);
      const next = relayOn(chip, true, { gpioInterface: 'chardev' });
      await next.open();
      expect(chip.holder('gpiochip0', 17)).not.toBeNull();
    },
  );

  it('reports the link down when the holder dies', async () => {
    const chip = fake(1);
    const relay = relayOn(chip, true);
    await relay.open();
    const held = chip.holder('gpiochip0', 17);
    expect(held).toBe('gpioset');
    const pid = Number(
      (await import('node:fs')).readFileSync(join(chip.dir, 'held', 'gpiochip0-17'), 'utf8').split(' ')[0],
    );
    process.kill(pid, 'SIGKILL');
    await waitFor(() => relay.healthy() !== true);
    expect(relay.healthy()).toMatch(/gpioset stopped holding gpiochip0 line 17/);
  });
});
