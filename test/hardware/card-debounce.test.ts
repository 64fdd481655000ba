import { CardDebouncer } from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';

const card = (token: string) => ({ type: 'em4102' as const, token });

describe('card debounce', () => {
  it('counts a held card once, however long it is held', () => {
    let now = 0;
    const debouncer = new CardDebouncer(1000, () => now);
    const taps: boolean[] = [];
    // The reader repeats the card every 100 ms for 5 s.
    for (now = 0; now <= 5000; now += 100) taps.push(debouncer.accept(card('AA')));
    expect(taps.filter(Boolean)).toHaveLength(1);
  });

  it('counts the same card again once it was away for the window', () => {
    let now = 0;
    const debouncer = new CardDebouncer(1000, () => now);
    expect(debouncer.accept(card('AA'))).toBe(true);
    now = 999;
    expect(debouncer.accept(card('AA'))).toBe(false);
    now = 1999;
    expect(debouncer.accept(card('AA'))).toBe(true);
  });

  it('counts a different card at once', () => {
    let now = 0;
    const debouncer = new CardDebouncer(1000, () => now);
    expect(debouncer.accept(card('AA'))).toBe(true);
    now = 10;
    expect(debouncer.accept(card('BB'))).toBe(true);
    now = 20;
    expect(debouncer.accept(card('AA'))).toBe(true);
  });

  it('counts every read when the window is 0', () => {
    const debouncer = new CardDebouncer(0, () => 5);
    expect(debouncer.accept(card('AA'))).toBe(true);
    expect(debouncer.accept(card('AA'))).toBe(true);
  });
});
