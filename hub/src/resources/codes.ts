import { createHmac, randomInt } from 'node:crypto';
import { hashToken, safeEqual } from '../secrets.js';

// No 0/O, 1/I/L: the code is printed on a sticker and sometimes typed by hand.
const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** A random switch-on code (about 50 bits). */
export function newSwitchOnCode(length = 10): string {
  let code = '';
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

/** RFC 6238 TOTP (HMAC-SHA1, 30 s steps, 6 digits) from a secret given as text. */
export function totp(secret: string, at: Date, step = 30, digits = 6): string {
  const counter = Math.floor(at.getTime() / 1000 / step);
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', Buffer.from(secret, 'utf8')).update(buf).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(value).padStart(digits, '0');
}

/**
 * Checks a switch-on code in constant time: the static code, or for `totp` resources the
 * current time step and one step either side (clock drift between agent display and hub).
 */
export function codeMatches(mode: string, secret: string, given: string, at: Date): boolean {
  if (mode === 'totp') {
    let ok = false;
    for (const drift of [-30_000, 0, 30_000]) {
      // No early exit: every candidate is compared.
      if (safeEqual(totp(secret, new Date(at.getTime() + drift)), given.trim())) ok = true;
    }
    return ok;
  }
  return safeEqual(secret.toUpperCase(), given.trim().toUpperCase());
}

/** How a retired code is kept: a hash of its upper-case text (codes are typed case-blind). */
export function retiredCodeHash(code: string): string {
  return hashToken(`switch-on-code:${code.trim().toUpperCase()}`);
}
