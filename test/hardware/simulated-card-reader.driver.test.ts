import {
  type CardRead,
  createCardReader,
  isSimulatedCardReader,
  SimulatedCardReader,
} from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';

describe('simulated card reader', () => {
  it('delivers every injected tap, normalised to upper-case hex and em4102 by default', async () => {
    const reader = createCardReader({ kind: 'simulated' });
    const taps: CardRead[] = [];
    await reader.start((card) => taps.push(card));
    expect(reader.inject({ token: ' 62e3086ced ' })).toBe(true);
    expect(reader.inject({ token: '62e3086ced' })).toBe(true);
    expect(reader.inject({ type: 'nfca', token: '04a1b2' })).toBe(true);
    expect(taps).toEqual([
      { type: 'em4102', token: '62E3086CED' },
      { type: 'em4102', token: '62E3086CED' },
      { type: 'nfca', token: '04A1B2' },
    ]);
    await reader.stop();
  });

  it('rejects bad taps with a clear error and delivers nothing', async () => {
    const reader = new SimulatedCardReader();
    const taps: CardRead[] = [];
    await reader.start((card) => taps.push(card));
    expect(() => reader.inject({ token: 'xyz' })).toThrow(/hex digits, got "xyz"/);
    expect(() => reader.inject({ token: '' })).toThrow(/hex digits/);
    expect(() => reader.inject({ type: 'mifare', token: 'AA' })).toThrow(/unknown key type "mifare".*em4102/);
    expect(taps).toEqual([]);
  });

  it('drops taps while stopped', async () => {
    const reader = new SimulatedCardReader();
    const taps: CardRead[] = [];
    await reader.start((card) => taps.push(card));
    await reader.stop();
    expect(reader.inject({ token: 'AA' })).toBe(false);
    expect(taps).toEqual([]);
  });

  it('is recognisable among readers built from config', () => {
    expect(isSimulatedCardReader(createCardReader({ kind: 'simulated' }))).toBe(true);
    expect(isSimulatedCardReader(createCardReader({ kind: 'rdm6300', path: '/dev/serial0' }))).toBe(false);
  });
});
