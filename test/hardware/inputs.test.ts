import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createInputs,
  type GpioLineInfo,
  GpioInput,
  gpiogetArgs,
  gpiomonArgs,
  InputConfig,
  InputDebouncer,
  parseGpiomonEvent,
  type PowerMeter,
  PowerHysteresis,
  SimulatedInputsFile,
} from '@makerspace/hardware';
import { ConfigError } from '@makerspace/shared';
import { describe, expect, it } from 'vitest';
import { useTeardown } from './helpers/teardown.js';

const defer = useTeardown();

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'inputs-'));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A timer the test advances by hand. */
function manualTimers() {
  let now = 0;
  const pending: { at: number; fn: () => void; live: boolean }[] = [];
  return {
    setTimer: (fn: () => void, ms: number) => {
      const entry = { at: now + ms, fn, live: true };
      pending.push(entry);
      return { cancel: () => (entry.live = false) };
    },
    advance(ms: number) {
      now += ms;
      for (const entry of pending.filter((e) => e.live && e.at <= now)) {
        entry.live = false;
        entry.fn();
      }
    },
  };
}

describe('InputDebouncer', () => {
  it('reports a level only once it has held for the debounce time; chatter reports nothing', () => {
    const timers = manualTimers();
    const seen: boolean[] = [];
    const debouncer = new InputDebouncer(50, (level) => seen.push(level), timers.setTimer);
    debouncer.initial(false);
    expect(seen).toEqual([false]);
    // A contact closing chatters: high, low, high within a few ms.
    debouncer.push(true);
    timers.advance(5);
    debouncer.push(false);
    timers.advance(5);
    debouncer.push(true);
    timers.advance(49);
    expect(seen).toEqual([false]);
    timers.advance(1);
    expect(seen).toEqual([false, true]);
    // A short glitch back to low is dropped.
    debouncer.push(false);
    timers.advance(20);
    debouncer.push(true);
    timers.advance(100);
    expect(seen).toEqual([false, true]);
  });

  it('with 0 ms passes every change at once', () => {
    const seen: boolean[] = [];
    const debouncer = new InputDebouncer(0, (level) => seen.push(level));
    debouncer.initial(true);
    debouncer.push(false);
    debouncer.push(false);
    debouncer.push(true);
    expect(seen).toEqual([true, false, true]);
  });
});

describe('PowerHysteresis', () => {
  it('is busy above the threshold and idle only below threshold minus hysteresis', () => {
    const h = new PowerHysteresis(10, 3);
    expect(h.update(2)).toBe(false);
    expect(h.update(10)).toBe(false);
    expect(h.update(10.5)).toBe(true);
    // Between 7 and 10 W the machine stays busy: no flapping around the threshold.
    expect(h.update(8)).toBe(true);
    expect(h.update(7)).toBe(true);
    expect(h.update(6.9)).toBe(false);
    expect(h.update(9)).toBe(false);
    // A silent plug: unknown, then decided afresh by the next reading.
    expect(h.update(null)).toBe(null);
    expect(h.update(8)).toBe(false);
    expect(h.update(Number.NaN)).toBe(null);
    expect(h.update(50)).toBe(true);
  });
});

describe('InputConfig', () => {
  it('takes the issue example and fills the GPIO defaults', () => {
    expect(InputConfig.parse({ name: 'lid', kind: 'interlock', label: 'Lid' })).toEqual({
      name: 'lid',
      kind: 'interlock',
      label: 'Lid',
    });
    expect(
      InputConfig.parse({ name: 'busy', kind: 'busy', source: { kind: 'gpio', pin: 22, activeLow: true } })
        .source,
    ).toEqual({ kind: 'gpio', pin: 22, activeLow: true, bias: 'pull-up', debounceMs: 50 });
    expect(
      InputConfig.parse({ name: 'busy', kind: 'busy', source: { kind: 'power', thresholdWatts: 15 } }).source,
    ).toEqual({ kind: 'power', thresholdWatts: 15, hysteresisWatts: 2 });
  });

  it('names every problem with its path', () => {
    const result = InputConfig.safeParse({
      name: 'door open!',
      kind: 'interlock',
      source: { kind: 'gpio', pin: 40 },
      heldOpenSeconds: 10,
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['name', 'source.pin', 'source.activeLow']));
    const power = InputConfig.safeParse({
      name: 'lid',
      kind: 'interlock',
      source: { kind: 'power', thresholdWatts: 5, hysteresisWatts: 6 },
    });
    expect(power.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual(
      expect.arrayContaining([
        'source.hysteresisWatts: hysteresisWatts must be less than thresholdWatts',
        'source: a power reading can only tell busy from idle (kind busy)',
      ]),
    );
  });
});

describe('createInputs', () => {
  it('refuses a power source on a relay that measures nothing, naming the entry', () => {
    const inputs = [
      InputConfig.parse({ name: 'busy', kind: 'busy', source: { kind: 'power', thresholdWatts: 5 } }),
    ];
    let error: unknown;
    try {
      createInputs({ inputs, relay: { description: 'GPIO relay' }, source: 'agent config' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems[0]).toMatch(
      /^inputs\.0\.source: kind power reads the relay's power meter/,
    );
  });

  it('reads busy from a relay that is a power meter, with hysteresis; a silent plug is unknown', async () => {
    const listeners = new Set<(w: number | null) => void>();
    let last: number | null = 3;
    const plug: PowerMeter & { description: string } = {
      description: 'fake plug',
      onPower(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      lastPower: () => last,
    };
    const send = (w: number | null) => {
      last = w;
      for (const l of listeners) l(w);
    };
    const inputs = createInputs({
      inputs: [
        InputConfig.parse({
          name: 'busy',
          kind: 'busy',
          source: { kind: 'power', thresholdWatts: 20, hysteresisWatts: 5 },
        }),
      ],
      relay: plug,
      source: 'agent config',
    });
    const busy = inputs.get('busy')!;
    const seen: Array<boolean | null> = [];
    busy.onChange((v) => seen.push(v));
    await busy.open();
    expect(busy.get()).toBe(false);
    send(120);
    send(18);
    send(14);
    send(null);
    expect(seen).toEqual([false, true, false, null]);
    await busy.close();
    send(200);
    expect(busy.get()).toBe(null);
    expect(listeners.size).toBe(0);
  });
});

describe('SimulatedInputsFile', () => {
  it('reads the inputs by name and again whenever the file changes; missing names are unknown', async () => {
    const dir = tempDir();
    const file = join(dir, 'inputs.json');
    writeFileSync(file, JSON.stringify({ busy: true, lid: false }));
    const sim = new SimulatedInputsFile({ file, intervalMs: 20 });
    const busy = sim.input('busy');
    const lid = sim.input('lid');
    const door = sim.input('door');
    defer(async () => {
      await busy.close();
      await lid.close();
      await door.close();
    });
    await busy.open();
    await lid.open();
    await door.open();
    expect([busy.get(), lid.get(), door.get()]).toEqual([true, false, null]);
    const changes: Array<boolean | null> = [];
    lid.onChange((v) => changes.push(v));
    // Written as editors and tests do: a new file renamed over the old one.
    await writeFile(`${file}.tmp`, JSON.stringify({ busy: false, lid: true, door: true }));
    await rename(`${file}.tmp`, file);
    await until(() => lid.get() === true);
    expect([busy.get(), door.get()]).toEqual([false, true]);
    // Half an edit (not JSON): every state stays as it was.
    await writeFile(file, '{"busy": tr');
    await new Promise((r) => setTimeout(r, 150));
    expect([busy.get(), lid.get(), door.get()]).toEqual([false, true, true]);
    await writeFile(file, JSON.stringify({ busy: 'yes', lid: true }));
    await until(() => busy.get() === null);
    expect(door.get()).toBe(null);
    expect(changes).toEqual([true]);
  });

  it('a simulated input without hardware.inputsFile is a ConfigError naming the entry', () => {
    expect(() =>
      createInputs({
        inputs: [InputConfig.parse({ name: 'lid', kind: 'interlock' })],
        relay: {},
        source: 'agent config',
      }),
    ).toThrow(/inputs\.0\.source: the input "lid" names no source/);
  });
});

describe('GPIO inputs through libgpiod', () => {
  const line: GpioLineInfo = {
    chip: 'gpiochip0',
    offset: 22,
    name: 'GPIO22',
    consumer: null,
    direction: 'input',
  };

  it('builds gpioget and gpiomon command lines of libgpiod 1.x and 2.x', () => {
    expect(gpiogetArgs(1, line, 'pull-up')).toEqual(['--bias=pull-up', 'gpiochip0', '22']);
    expect(gpiogetArgs(2, line, 'pull-up')).toEqual([
      '--numeric',
      '--consumer',
      'makerspace-agent',
      '--bias',
      'pull-up',
      '--hold-period',
      '20ms',
      '--chip',
      'gpiochip0',
      '22',
    ]);
    expect(gpiomonArgs(1, line, 'pull-down')).toEqual([
      '--bias=pull-down',
      '--line-buffered',
      '--format=%e %o',
      'gpiochip0',
      '22',
    ]);
    expect(gpiomonArgs(2, line, 'pull-up')).toEqual([
      '--consumer',
      'makerspace-agent',
      '--bias',
      'pull-up',
      '--edges',
      'both',
      '--format',
      '%e %o',
      '--chip',
      'gpiochip0',
      '22',
    ]);
  });

  it('parses gpiomon edges: v1 prints 1/0, v2 prints 1/2 for rising/falling', () => {
    expect(parseGpiomonEvent('1 22', 1)).toBe(1);
    expect(parseGpiomonEvent('0 22', 1)).toBe(0);
    expect(parseGpiomonEvent('2 22', 1)).toBe(null);
    expect(parseGpiomonEvent('1 22', 2)).toBe(1);
    expect(parseGpiomonEvent('2 22', 2)).toBe(0);
    expect(parseGpiomonEvent('0 22', 2)).toBe(null);
    expect(parseGpiomonEvent('event: RISING EDGE', 2)).toBe(null);
  });

  it('reads the level, follows debounced edges and inverts an active-low contact', async () => {
    // Stand-ins for libgpiod 2.x's tools: gpioget prints the level; gpiomon prints the edges
    // written to a fifo-like file, one per line, as the real one does for a chattering contact.
    const dir = tempDir();
    const bin = join(dir, 'bin');
    const edges = join(dir, 'edges');
    writeFileSync(edges, '');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(bin);
    const tool = (name: string, body: string) => {
      writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    };
    tool(
      'gpiomon',
      `[ "$1" = "--version" ] && { echo "gpiomon (libgpiod) v2.1.3"; exit 0; }\necho "$@" > ${dir}/mon-args\nexec tail -f -n +1 ${edges}`,
    );
    tool('gpioinfo', 'printf \'gpiochip0 - 58 lines:\\n\\tline  22:\\t"GPIO22"        \\tinput\\n\'');
    tool('gpioget', 'echo 1');
    const input = new GpioInput({
      pin: 22,
      activeLow: true,
      bias: 'pull-up',
      debounceMs: 30,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    defer(() => input.close());
    const seen: Array<boolean | null> = [];
    input.onChange((v) => seen.push(v));
    await input.open();
    // High at rest with the pull-up: an active-low contact that is open.
    expect(input.get()).toBe(false);
    const { appendFileSync, readFileSync } = await import('node:fs');
    await until(() => {
      try {
        return readFileSync(join(dir, 'mon-args'), 'utf8').includes('--bias pull-up');
      } catch {
        return false;
      }
    });
    // Closing: chatter (falling, rising, falling), then it stays low.
    appendFileSync(edges, '2 22\n1 22\n2 22\n');
    await until(() => input.get() === true);
    appendFileSync(edges, '1 22\n');
    await until(() => input.get() === false);
    expect(seen).toEqual([false, true, false]);
  });
});
