/**
 * RDM6300 (125 kHz EM4102) serial frames, 9600 8N1, sent repeatedly while a card is in the field:
 *
 *   0x02 | 10 ASCII hex chars: version byte + 32-bit card number | 2 ASCII hex checksum | 0x03
 *
 * The checksum is the XOR of the 5 data bytes. The token we report is the 10 data chars in upper
 * case, which is how EM4102 keys are stored on the hub.
 */
export const RDM6300_START = 0x02;
export const RDM6300_END = 0x03;
export const RDM6300_FRAME_LENGTH = 14;

/** Why a frame was thrown away, for the reader's log and counters. */
export interface RejectedFrame {
  reason: 'checksum' | 'not-hex' | 'no-end-byte';
  bytes: Buffer;
}

const isHexDigit = (byte: number) =>
  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);

/** Builds a valid frame for a 10-hex-char token (tests and simulators use it). */
export function encodeRdm6300Frame(token: string): Buffer {
  if (!/^[0-9a-fA-F]{10}$/.test(token))
    throw new RangeError(`an RDM6300 token is 10 hex chars, got "${token}"`);
  const checksum = rdm6300Checksum(token);
  return Buffer.concat([
    Buffer.from([RDM6300_START]),
    Buffer.from(token.toUpperCase() + checksum.toString(16).toUpperCase().padStart(2, '0'), 'ascii'),
    Buffer.from([RDM6300_END]),
  ]);
}

/** XOR of the five bytes spelled by 10 hex chars. */
export function rdm6300Checksum(dataHex: string): number {
  let sum = 0;
  for (let i = 0; i < 10; i += 2) sum ^= Number.parseInt(dataHex.slice(i, i + 2), 16);
  return sum;
}

/**
 * Incremental parser: feed it whatever chunks the port delivers. It looks for 0x02, collects a
 * frame, and checks it; anything else is skipped until the next 0x02, so it resynchronises after
 * line noise or a reader plugged in mid-frame. Bad frames are dropped and reported.
 */
export class Rdm6300Parser {
  private frame: number[] | null = null;
  /** Frames dropped since creation (bad checksum, non-hex data, missing end byte). */
  rejected = 0;

  constructor(private readonly onRejected: (frame: RejectedFrame) => void = () => {}) {}

  /** Returns the tokens of the complete, valid frames in this chunk (and earlier leftovers). */
  push(chunk: Uint8Array): string[] {
    const tokens: string[] = [];
    for (const byte of chunk) {
      if (byte === RDM6300_START) {
        // A start byte inside a frame means the previous one was cut off: start over from here.
        if (this.frame && this.frame.length > 1) this.reject('no-end-byte', this.frame);
        this.frame = [byte];
        continue;
      }
      if (!this.frame) continue; // garbage between frames
      this.frame.push(byte);
      if (this.frame.length < RDM6300_FRAME_LENGTH) {
        if (!isHexDigit(byte)) this.drop('not-hex');
        continue;
      }
      const token = this.check(this.frame);
      this.frame = null;
      if (token) tokens.push(token);
    }
    return tokens;
  }

  private check(frame: number[]): string | null {
    if (frame[RDM6300_FRAME_LENGTH - 1] !== RDM6300_END) return this.reject('no-end-byte', frame);
    const text = Buffer.from(frame.slice(1, 13)).toString('ascii').toUpperCase();
    const data = text.slice(0, 10);
    if (rdm6300Checksum(data) !== Number.parseInt(text.slice(10), 16)) return this.reject('checksum', frame);
    return data;
  }

  private drop(reason: RejectedFrame['reason']): void {
    if (this.frame) this.reject(reason, this.frame);
    this.frame = null;
  }

  private reject(reason: RejectedFrame['reason'], frame: number[]): null {
    this.rejected++;
    this.onRejected({ reason, bytes: Buffer.from(frame) });
    return null;
  }
}
