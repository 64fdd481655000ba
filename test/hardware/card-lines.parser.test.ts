import { CardLineParser, parseCardLine, type RejectedLine } from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';

describe('card id lines', () => {
  it('accepts trimmed hex and upper-cases it', () => {
    expect(parseCardLine('  04a1b2c3d4e5f6 \t')).toBe('04A1B2C3D4E5F6');
    expect(parseCardLine('0012345678')).toBe('0012345678');
  });

  it('rejects empty, non-hex and absurdly long lines', () => {
    expect(parseCardLine('')).toBeNull();
    expect(parseCardLine('   ')).toBeNull();
    expect(parseCardLine('card: 1234')).toBeNull();
    expect(parseCardLine('0x1234')).toBeNull();
    expect(parseCardLine('A'.repeat(65))).toBeNull();
  });

  it('splits chunks on \\n, \\r\\n and \\r and keeps partial lines for the next chunk', () => {
    const parser = new CardLineParser();
    expect(parser.push('04a1')).toEqual([]);
    expect(parser.push('b2c3\r')).toEqual(['04A1B2C3']);
    expect(parser.push('\nDEADBEEF\ncafe')).toEqual(['DEADBEEF']);
    expect(parser.push(Buffer.from('\r\n'))).toEqual(['CAFE']);
  });

  it('skips empty lines silently and reports other garbage', () => {
    const rejected: RejectedLine[] = [];
    const parser = new CardLineParser((line) => rejected.push(line));
    expect(parser.push('\n\nhello\n12AB\n\xff\xfe\n')).toEqual(['12AB']);
    expect(rejected.map((r) => r.reason)).toEqual(['not-hex', 'not-hex']);
    expect(rejected[0].text).toBe('hello');
    expect(parser.rejected).toBe(2);
  });

  it('drops an endless line without buffering it and does not read its tail as a card', () => {
    const rejected: RejectedLine[] = [];
    const parser = new CardLineParser((line) => rejected.push(line));
    expect(parser.push('A'.repeat(50))).toEqual([]);
    expect(parser.push('B'.repeat(50))).toEqual([]);
    expect(parser.push('C'.repeat(100))).toEqual([]);
    expect(parser.push('DDDD\n1234\n')).toEqual(['1234']);
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toBe('too-long');
  });
});
