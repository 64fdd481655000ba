import type { CardRead } from './card-reader.js';

export const DEFAULT_DEBOUNCE_MS = 1000;

/**
 * Turns a stream of raw reads into taps. Readers repeat a held card many times a second, so a
 * read of the same card within `windowMs` of its previous read is the same tap. The window runs
 * from the last raw read, not the last reported one: a card held for a minute is one tap, and
 * lifting it and tapping again after the window is a new one. A different card is always a new
 * tap.
 */
export class CardDebouncer {
  private last: { key: string; at: number } | null = null;

  constructor(
    private readonly windowMs: number = DEFAULT_DEBOUNCE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when this read is a new tap that should be reported. */
  accept(card: CardRead): boolean {
    const key = `${card.type}:${card.token}`;
    const at = this.now();
    const repeat = this.last !== null && this.last.key === key && at - this.last.at < this.windowMs;
    this.last = { key, at };
    return !repeat;
  }

  reset(): void {
    this.last = null;
  }
}
