/**
 * Frames of the common USB relay boards sold as "LCUS-1/2/4/8" (CH340 serial chip).
 * Each command is 4 bytes: 0xA0, the channel (1-8), the state (1 on, 0 off), and a checksum that
 * is the low byte of the sum of the first three. The boards do not answer.
 */
export const LCUS_START = 0xa0;
export const LCUS_MAX_CHANNEL = 8;

/** Encodes "switch channel `channel` on/off"; channel 1 on is A0 01 01 A2. */
export function encodeRelayFrame(channel: number, on: boolean): Buffer {
  if (!Number.isInteger(channel) || channel < 1 || channel > LCUS_MAX_CHANNEL) {
    throw new RangeError(`relay channel must be an integer from 1 to ${LCUS_MAX_CHANNEL}, got ${channel}`);
  }
  const state = on ? 0x01 : 0x00;
  return Buffer.from([LCUS_START, channel, state, (LCUS_START + channel + state) & 0xff]);
}

/** Decodes one frame (used by tests playing the board, and for logging what was sent). */
export function decodeRelayFrame(frame: Uint8Array): { channel: number; on: boolean } | null {
  if (frame.length !== 4 || frame[0] !== LCUS_START) return null;
  const [, channel, state, sum] = frame;
  if (channel < 1 || channel > LCUS_MAX_CHANNEL || state > 1) return null;
  if (((LCUS_START + channel + state) & 0xff) !== sum) return null;
  return { channel, on: state === 1 };
}
