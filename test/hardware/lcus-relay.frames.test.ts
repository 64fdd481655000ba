import { decodeRelayFrame, encodeRelayFrame } from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';

describe('LCUS relay frames', () => {
  it('encodes channel 1 on and off exactly as the board expects', () => {
    expect([...encodeRelayFrame(1, true)]).toEqual([0xa0, 0x01, 0x01, 0xa2]);
    expect([...encodeRelayFrame(1, false)]).toEqual([0xa0, 0x01, 0x00, 0xa1]);
  });

  it('encodes every channel with the checksum of its own bytes', () => {
    expect([...encodeRelayFrame(2, true)]).toEqual([0xa0, 0x02, 0x01, 0xa3]);
    expect([...encodeRelayFrame(4, false)]).toEqual([0xa0, 0x04, 0x00, 0xa4]);
    expect([...encodeRelayFrame(8, true)]).toEqual([0xa0, 0x08, 0x01, 0xa9]);
  });

  it('refuses channels the boards do not have', () => {
    expect(() => encodeRelayFrame(0, true)).toThrow(/1 to 8/);
    expect(() => encodeRelayFrame(9, true)).toThrow(/1 to 8/);
    expect(() => encodeRelayFrame(1.5, true)).toThrow(/1 to 8/);
  });

  it('decodes its own frames and rejects corrupted ones', () => {
    expect(decodeRelayFrame(encodeRelayFrame(3, true))).toEqual({ channel: 3, on: true });
    expect(decodeRelayFrame(Buffer.from([0xa0, 0x01, 0x01, 0xa1]))).toBeNull();
    expect(decodeRelayFrame(Buffer.from([0xa1, 0x01, 0x01, 0xa3]))).toBeNull();
    expect(decodeRelayFrame(Buffer.from([0xa0, 0x01, 0x01]))).toBeNull();
  });
});
