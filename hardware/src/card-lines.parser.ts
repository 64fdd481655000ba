/**
 * Readers that type one card id per line (USB "keyboard wedge" readers switched to serial mode,
 * Wiegand-to-serial adapters, small microcontroller bridges). Lines end in \n, \r\n or \r.
 * A line is a card when, trimmed, it is hex; empty lines are skipped and other lines rejected.
 */

/** Longer lines are noise (wrong baud rate, a reader dumping debug output), not card ids. */
export const MAX_CARD_LINE_LENGTH = 64;

export interface RejectedLine {
  reason: 'not-hex' | 'too-long';
  text: string;
}

/** The token of one line, upper-cased, or null when it is not a card id. */
export function parseCardLine(line: string): string | null {
  const text = line.trim();
  if (text.length === 0 || text.length > MAX_CARD_LINE_LENGTH) return null;
  return /^[0-9a-fA-F]+$/.test(text) ? text.toUpperCase() : null;
}

/** Incremental line splitter for serial chunks; keeps a partial line until its end arrives. */
export class CardLineParser {
  private pending = '';
  private discarding = false;
  /** Lines dropped since creation. */
  rejected = 0;

  constructor(private readonly onRejected: (line: RejectedLine) => void = () => {}) {}

  push(chunk: Uint8Array | string): string[] {
    // latin1 maps every byte to one char, so line noise can never throw a decoding error.
    this.pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1');
    const lines = this.pending.split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? '';
    const tokens: string[] = [];
    for (const line of lines) {
      if (this.discarding) {
        // The rest of an overlong line: its tail must not pass for a card id.
        this.discarding = false;
        continue;
      }
      if (line.trim().length === 0) continue;
      const token = parseCardLine(line);
      if (token) tokens.push(token);
      else this.reject(line.trim().length > MAX_CARD_LINE_LENGTH ? 'too-long' : 'not-hex', line);
    }
    if (this.pending.length > MAX_CARD_LINE_LENGTH) {
      // No line end in sight: drop what we have rather than buffer forever, and skip to the next line.
      if (!this.discarding) this.reject('too-long', this.pending);
      this.pending = '';
      this.discarding = true;
    }
    return tokens;
  }

  private reject(reason: RejectedLine['reason'], text: string): void {
    this.rejected++;
    this.onRejected({ reason, text: text.slice(0, MAX_CARD_LINE_LENGTH) });
  }
}
