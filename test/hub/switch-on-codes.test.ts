import { describe, expect, it } from 'vitest';
import {
  base32Decode,
  base32Encode,
  codeMatches,
  isTotpSecret,
  newTotpSecret,
  totp,
  totpUri,
} from '../../hub/src/resources/codes.js';

// RFC 6238 appendix B: the SHA-1 key is the ASCII text "12345678901234567890".
const RFC_KEY_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP switch-on codes', () => {
  it('base32 round-trips and matches RFC 4648 test vectors', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Encode(Buffer.from('12345678901234567890'))).toBe(RFC_KEY_BASE32);
    expect(base32Decode('mzxw 6ytb oi======')?.toString()).toBe('foobar');
    expect(base32Decode('NOT-BASE32')).toBeNull();
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(secret)).toHaveLength(20);
  });

  it('gives the RFC 6238 codes for the RFC key in base32, as authenticator apps do', () => {
    // The RFC's 8-digit values, cut to the 6 digits apps show.
    expect(totp(RFC_KEY_BASE32, new Date(59_000))).toBe('287082');
    expect(totp(RFC_KEY_BASE32, new Date(1_111_111_109_000))).toBe('081804');
    expect(totp(RFC_KEY_BASE32, new Date(1_234_567_890_000))).toBe('005924');
    expect(totp(RFC_KEY_BASE32, new Date(20_000_000_000_000))).toBe('353130');
  });

  it('accepts the step before and after (clock drift) and nothing further', () => {
    const at = new Date(1_234_567_890_000);
    for (const drift of [-30_000, 0, 30_000])
      expect(
        codeMatches('totp', RFC_KEY_BASE32, totp(RFC_KEY_BASE32, new Date(at.getTime() + drift)), at),
      ).toBe(true);
    expect(
      codeMatches('totp', RFC_KEY_BASE32, totp(RFC_KEY_BASE32, new Date(at.getTime() + 60_000)), at),
    ).toBe(false);
  });

  it('keeps the codes of a text secret set before base32 and gives it to apps in base32', () => {
    const legacy = 'K7M3P9QRST';
    expect(isTotpSecret(legacy)).toBe(false);
    const uri = new URL(totpUri(legacy, 'Laser'));
    const asBase32 = uri.searchParams.get('secret') as string;
    expect(base32Decode(asBase32)?.toString()).toBe(legacy);
    const at = new Date(1_700_000_000_000);
    expect(totp(asBase32, at)).toBe(totp(legacy, at));
  });
});
