import { encodeRdm6300Frame, Rdm6300Parser, type RejectedFrame, rdm6300Checksum } from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';

// A real tag: data 0x62 0xE3 0x08 0x6C 0xED, XOR = 0x08.
const frameBytes = (text: string) =>
  Buffer.concat([Buffer.from([0x02]), Buffer.from(text), Buffer.from([0x03])]);
const GOOD = frameBytes('62E3086CED08');

describe('RDM6300 frames', () => {
  it('computes the checksum as the XOR of the five data bytes', () => {
    expect(rdm6300Checksum('62E3086CED')).toBe(0x08);
    expect(rdm6300Checksum('0000000000')).toBe(0);
    expect(rdm6300Checksum('FF00000000')).toBe(0xff);
  });

  it('encodes a frame byte for byte', () => {
    expect([...encodeRdm6300Frame('62e3086ced')]).toEqual([...GOOD]);
  });

  it('reads the 10 data chars, upper-cased, from a whole frame', () => {
    const parser = new Rdm6300Parser();
    expect(parser.push(GOOD)).toEqual(['62E3086CED']);
    expect(parser.push(frameBytes('62e3086ced08'))).toEqual(['62E3086CED']);
    expect(parser.rejected).toBe(0);
  });

  it('reassembles a frame delivered one byte at a time', () => {
    const parser = new Rdm6300Parser();
    const tokens = [...GOOD].flatMap((byte) => parser.push(Buffer.from([byte])));
    expect(tokens).toEqual(['62E3086CED']);
  });

  it('finds several frames in one chunk, with garbage between them', () => {
    const second = encodeRdm6300Frame('0102030405');
    const chunk = Buffer.concat([Buffer.from([0xff, 0x41, 0x03]), GOOD, Buffer.from('noise'), second]);
    expect(new Rdm6300Parser().push(chunk)).toEqual(['62E3086CED', '0102030405']);
  });

  it('drops a frame with a bad checksum and reports it', () => {
    const rejected: RejectedFrame[] = [];
    const parser = new Rdm6300Parser((frame) => rejected.push(frame));
    expect(parser.push(frameBytes('62E3086CED09'))).toEqual([]);
    expect(parser.rejected).toBe(1);
    expect(rejected[0].reason).toBe('checksum');
    expect([...rejected[0].bytes]).toEqual([...frameBytes('62E3086CED09')]);
    // The next good frame still gets through.
    expect(parser.push(GOOD)).toEqual(['62E3086CED']);
  });

  it('drops frames with non-hex data or no end byte, and resyncs on the next start byte', () => {
    const rejected: string[] = [];
    const parser = new Rdm6300Parser((frame) => rejected.push(frame.reason));
    expect(parser.push(frameBytes('62E3086CEZ08'))).toEqual([]);
    expect(
      parser.push(Buffer.concat([frameBytes('62E3086CED08').subarray(0, 13), Buffer.from([0x04])])),
    ).toEqual([]);
    // A frame cut off by a new start byte: the cut one is dropped, the new one read.
    expect(parser.push(Buffer.concat([GOOD.subarray(0, 7), GOOD]))).toEqual(['62E3086CED']);
    expect(rejected).toEqual(['not-hex', 'no-end-byte', 'no-end-byte']);
  });

  it('never throws on random bytes', () => {
    const parser = new Rdm6300Parser();
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed & 0xff;
    };
    for (let i = 0; i < 200; i++) {
      expect(() => parser.push(Buffer.from(Array.from({ length: 37 }, random)))).not.toThrow();
    }
    expect(parser.push(GOOD)).toEqual(['62E3086CED']);
  });
});
