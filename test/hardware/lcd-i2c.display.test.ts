import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDisplay,
  type I2cBusLike,
  LcdI2cDisplay,
  layoutLines,
  lcdByte,
  lcdCharacters,
  lcdInitSteps,
  lcdNibble,
  lcdRowAddress,
  lcdRowBytes,
  SimulatedDisplay,
} from '@makerspace/hardware';
import { ConfigError } from '@makerspace/shared/agent';
import { describe, expect, it } from 'vitest';
import { useTeardown } from './helpers/teardown.js';

const defer = useTeardown();

/** A fake /dev/i2c-N: records every write (address and bytes) and can fail like a loose wire. */
class FakeI2cBus implements I2cBusLike {
  readonly writes: Array<{ address: number; bytes: number[] }> = [];
  closed = false;
  failWith: NodeJS.ErrnoException | null = null;

  async i2cWrite(address: number, length: number, buffer: Buffer): Promise<number> {
    if (this.failWith) throw this.failWith;
    this.writes.push({ address, bytes: [...buffer.subarray(0, length)] });
    return length;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  bytes(): number[] {
    return this.writes.flatMap((w) => w.bytes);
  }
}

/**
 * Decodes what the PCF8574 outputs mean to the LCD: every falling edge of EN (P2) latches D4..D7
 * (P4..P7) with RS (P0); two nibbles make a byte. Checks R/W (P1) stays low throughout.
 */
function decode(bytes: number[]): Array<{ rs: boolean; nibble: number }> {
  const nibbles: Array<{ rs: boolean; nibble: number }> = [];
  let previous = 0;
  for (const byte of bytes) {
    expect(byte & 0x02).toBe(0);
    if (previous & 0x04 && !(byte & 0x04))
      nibbles.push({ rs: (previous & 0x01) === 1, nibble: previous >> 4 });
    previous = byte;
  }
  return nibbles;
}

describe('HD44780 over a PCF8574 backpack, byte by byte', () => {
  it('a nibble is an EN pulse: the same byte with EN (0x04) high, then low; backlight is 0x08, RS 0x01', () => {
    expect(lcdNibble(0x3, false, true)).toEqual([0x3c, 0x38]);
    expect(lcdNibble(0x3, false, false)).toEqual([0x34, 0x30]);
    expect(lcdNibble(0xa, true, true)).toEqual([0xad, 0xa9]);
  });

  it('a byte is its high nibble then its low nibble', () => {
    // 'A' = 0x41 as data with backlight: 0x4_ then 0x1_, RS and backlight set.
    expect(lcdByte(0x41, true, true)).toEqual([0x4d, 0x49, 0x1d, 0x19]);
    // Clear (0x01) as an instruction without backlight.
    expect(lcdByte(0x01, false, false)).toEqual([0x04, 0x00, 0x14, 0x10]);
  });

  it('initialises by instruction: 0x3 three times, 0x2, then 0x28, 0x08, 0x01, 0x06, 0x0C', () => {
    const steps = lcdInitSteps(true);
    expect(steps[0]).toEqual({ bytes: [0x08], delayMs: 50 });
    expect(steps.slice(1, 5).map((s) => s.bytes)).toEqual([
      [0x3c, 0x38],
      [0x3c, 0x38],
      [0x3c, 0x38],
      [0x2c, 0x28],
    ]);
    expect(steps[1].delayMs).toBeGreaterThanOrEqual(5);
    expect(steps.slice(5).map((s) => s.bytes)).toEqual([
      [0x2c, 0x28, 0x8c, 0x88],
      [0x0c, 0x08, 0x8c, 0x88],
      [0x0c, 0x08, 0x1c, 0x18],
      [0x0c, 0x08, 0x6c, 0x68],
      [0x0c, 0x08, 0xcc, 0xc8],
    ]);
    expect(steps[7].delayMs).toBeGreaterThanOrEqual(2); // clear needs 1.52 ms
  });

  it('addresses rows at 0x00, 0x40, then after the columns of rows 0 and 1 (4-row modules)', () => {
    expect([0, 1, 2, 3].map((r) => lcdRowAddress(r, 20))).toEqual([0x00, 0x40, 0x14, 0x54]);
    expect([0, 1, 2, 3].map((r) => lcdRowAddress(r, 16))).toEqual([0x00, 0x40, 0x10, 0x50]);
    // Row 1 of a 16x2: set DDRAM 0xC0, then 16 characters padded with spaces.
    const bytes = lcdRowBytes(1, 'Hi', 16, true);
    expect(bytes.slice(0, 4)).toEqual([0xcc, 0xc8, 0x0c, 0x08]);
    expect(bytes.length).toBe(4 + 16 * 4);
    expect(bytes.slice(4, 8)).toEqual(lcdByte(0x48, true, true));
    expect(bytes.slice(-4)).toEqual(lcdByte(0x20, true, true));
  });

  it('maps text to the A00 character ROM: accents dropped, ß as ss, the rest as ?', () => {
    expect(String.fromCharCode(...lcdCharacters('Zoë Müller-Strauß'))).toBe('Zoe Muller-Strauss');
    expect(String.fromCharCode(...lcdCharacters('a\\b~€'))).toBe('a?b??');
  });

  it('lays lines out per row, joining them when there are more lines than rows', () => {
    expect(layoutLines(['Ada', 'Lovelace'], 16, 2)).toEqual(['Ada', 'Lovelace']);
    expect(layoutLines(['Ada', 'Lovelace', 'Checked in'], 16, 2)).toEqual(['Ada Lovelace', 'Checked in']);
    expect(layoutLines(['Not trained for this machine'], 16, 2)).toEqual(['Not trained for', 'this machine']);
    expect(layoutLines(['Ada', ''], 20, 4)).toEqual(['Ada', '', '', '']);
    expect(layoutLines(['Supercalifragilistic'], 16, 2)).toEqual(['Supercalifragili', 'stic']);
  });
});

describe('LCD on a (fake) I2C bus', () => {
  async function open(options: Partial<ConstructorParameters<typeof LcdI2cDisplay>[0]> = {}) {
    const bus = new FakeI2cBus();
    const delays: number[] = [];
    const display = new LcdI2cDisplay({
      bus: 1,
      address: 0x27,
      columns: 16,
      rows: 2,
      backlight: true,
      openBus: async (n) => {
        expect(n).toBe(1);
        return bus;
      },
      sleep: async (ms) => {
        delays.push(ms);
      },
      ...options,
    });
    defer(() => display.close());
    await display.open();
    return { bus, display, delays };
  }

  it('sends the init sequence to the backpack address, then the rows as characters', async () => {
    const { bus, display, delays } = await open();
    expect(new Set(bus.writes.map((w) => w.address))).toEqual(new Set([0x27]));
    expect(bus.bytes()).toEqual(lcdInitSteps(true).flatMap((s) => s.bytes));
    expect(delays[0]).toBeGreaterThanOrEqual(40);
    bus.writes.length = 0;

    await display.show(['Ada Lovelace', 'Welcome']);
    const decoded = decode(bus.bytes());
    const values: Array<{ rs: boolean; value: number }> = [];
    for (let i = 0; i < decoded.length; i += 2)
      values.push({ rs: decoded[i].rs, value: (decoded[i].nibble << 4) | decoded[i + 1].nibble });
    expect(values[0]).toEqual({ rs: false, value: 0x80 });
    expect(
      String.fromCharCode(
        ...values
          .slice(1, 17)
          .filter((v) => v.rs)
          .map((v) => v.value),
      ),
    ).toBe('Ada Lovelace    ');
    expect(values[17]).toEqual({ rs: false, value: 0xc0 });
    expect(String.fromCharCode(...values.slice(18).map((v) => v.value))).toBe('Welcome         ');
    // Every byte keeps the backlight on.
    expect(bus.bytes().every((b) => (b & 0x08) === 0x08)).toBe(true);
  });

  it('rewrites only the rows that changed', async () => {
    const { bus, display } = await open();
    await display.show(['Laser', '']);
    bus.writes.length = 0;
    await display.show(['Laser', 'Ada']);
    expect(bus.bytes()).toEqual(lcdRowBytes(1, 'Ada', 16, true));
  });

  it('clears with the backlight off on close, and releases the bus', async () => {
    const { bus, display } = await open({ backlight: false });
    bus.writes.length = 0;
    await display.close();
    expect(bus.bytes()).toEqual([0x04, 0x00, 0x14, 0x10]);
    expect(bus.closed).toBe(true);
    await expect(display.show(['x'])).rejects.toMatchObject({ code: 'port-closed' });
  });

  it('says what to do when I2C is not enabled or the backpack does not answer', async () => {
    const missing = new LcdI2cDisplay({
      bus: 1,
      address: 0x27,
      columns: 16,
      rows: 2,
      backlight: true,
      openBus: async () => {
        throw Object.assign(new Error('ENOENT, no such file'), { code: 'ENOENT' });
      },
    });
    await expect(missing.open()).rejects.toThrow(/enable I2C/);
    const bus = new FakeI2cBus();
    bus.failWith = Object.assign(new Error('Remote I/O error'), { code: 'EREMOTEIO' });
    const silent = new LcdI2cDisplay({
      bus: 1,
      address: 0x3f,
      columns: 20,
      rows: 4,
      backlight: true,
      openBus: async () => bus,
      sleep: async () => {},
    });
    await expect(silent.open()).rejects.toThrow(/i2cdetect -y 1/);
    expect(bus.closed).toBe(true);
  });
});

describe('display config and the simulated display', () => {
  it('writes the lines an LCD of its size would show', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'display-'));
    defer(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'display.json');
    const display = createDisplay({ kind: 'simulated', file, columns: 16, rows: 2 });
    expect(display).toBeInstanceOf(SimulatedDisplay);
    await display.open();
    await display.show(['Zoë Müller-Lüdenscheidt', 'Welcome']);
    expect(JSON.parse(await readFile(file, 'utf8')).lines).toEqual(['Zoe Muller-Luden', 'Welcome']);
    await display.close();
    expect(JSON.parse(await readFile(file, 'utf8')).lines).toEqual(['', '']);
  });

  it('takes the LCD defaults (bus 1, 0x27, 16x2) and rejects sizes no module has', () => {
    const lcd = createDisplay({ kind: 'lcd-i2c' });
    expect(lcd.description).toBe('16x2 LCD on I2C bus 1 at 0x27');
    let error: unknown;
    try {
      createDisplay({ kind: 'lcd-i2c', address: 200, columns: 17, rows: 3 } as never);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as Error).message;
    expect(text).toMatch(/display\.address/);
    expect(text).toMatch(/display\.columns/);
    expect(text).toMatch(/display\.rows/);
  });
});
