import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { hashToken, safeEqual } from '../secrets.js';

// No 0/O, 1/I/L: the code is printed on a sticker and sometimes typed by hand.
const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** A random switch-on code (about 50 bits). */
export function newSwitchOnCode(length = 10): string {
  let code = '';
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, the form authenticator apps take. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (case, spaces and padding ignored); null when it is not base32. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  if (!/^[A-Z2-7]*$/.test(clean)) return null;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** At least 80 bits (RFC 4226 asks for 128, recommends 160): 16 base32 characters. */
export const MIN_TOTP_SECRET_CHARS = 16;

/** A new TOTP secret: 160 random bits in base32 (32 characters), as authenticator apps expect. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** True for a secret an authenticator app can take: base32, at least 80 bits. */
export function isTotpSecret(secret: string): boolean {
  const key = base32Decode(secret);
  return key !== null && secret.replace(/[\s=]/g, '').length >= MIN_TOTP_SECRET_CHARS;
}

/**
 * The HMAC key of a TOTP secret. Base32 secrets decode to their bytes (what authenticator apps
 * do); resources switched to TOTP before secrets were base32 keep their text secret as UTF-8,
 * so the codes their agents show stay valid. `totpUri` gives such a secret in base32 too.
 */
function totpKey(secret: string): Buffer {
  return isTotpSecret(secret) ? (base32Decode(secret) as Buffer) : Buffer.from(secret, 'utf8');
}

/** RFC 6238 TOTP (HMAC-SHA1, 30 s steps, 6 digits). */
export function totp(secret: string, at: Date, step = 30, digits = 6): string {
  const counter = Math.floor(at.getTime() / 1000 / step);
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', totpKey(secret)).update(buf).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(value).padStart(digits, '0');
}

/**
 * The `otpauth://` provisioning URI (Google Authenticator key URI format) an admin turns into a
 * QR code for an authenticator app or the agent's display: issuer "Makerspace", the resource's
 * name as the account.
 */
export function totpUri(secret: string, resourceName: string, issuer = 'Makerspace'): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(resourceName)}`;
  const params = new URLSearchParams({
    secret: base32Encode(totpKey(secret)),
    issuer,
    algorithm: 'SHA1',
    digits: '6',
    period: '30',
  });
  return `otpauth://totp/${label}?${params.toString()}`;
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
