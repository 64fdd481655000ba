import { readFileSync } from 'node:fs';
import type * as Argon2 from '@node-rs/argon2';
import { badRequest } from '../errors.js';
import { onFirstUse } from '../kernel/on-first-use.js';

export const minPasswordLength = 10;
export const maxPasswordLength = 200;

/** The native argon2 library, loaded by the first password to hash or check. */
const argon2 = onFirstUse<typeof Argon2>('@node-rs/argon2');

export function hashPassword(password: string): Promise<string> {
  const { Algorithm, hash } = argon2();
  // argon2id with the parameters OWASP recommends as the minimum (19 MiB, 2 passes, 1 lane).
  return hash(password, { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
}

// Verified against when no member (or no password) matches, so the answer takes as long as a
// real check and its timing does not tell whether the address is known.
let dummyHash: Promise<string> | null = null;

/** argon2 verify of `password` against `stored`, or against a dummy hash when there is none. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    dummyHash ??= hashPassword('no password is this one: 4c1d0e3b');
    await argon2()
      .verify(await dummyHash, password)
      .catch(() => false);
    return false;
  }
  return argon2()
    .verify(stored, password)
    .catch(() => false);
}

let common: Set<string> | null = null;

/** The shipped list of the 10,000 most common passwords of 10 or more characters (lower case). */
function commonPasswords(): Set<string> {
  if (!common) {
    const file = new URL('../../assets/common-passwords.txt', import.meta.url);
    common = new Set(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#')),
    );
  }
  return common;
}

const refuse = (message: string, reason: string) => badRequest(message, { field: 'password', reason });

/** The rules a new password must meet; throws 400 with `data: {field: 'password', reason}`. */
export function checkNewPassword(password: string, emailAddress: string | null): void {
  const length = [...password].length;
  if (length < minPasswordLength) {
    throw refuse(`The password must have at least ${minPasswordLength} characters`, 'tooShort');
  }
  if (length > maxPasswordLength) {
    throw refuse(`The password must have at most ${maxPasswordLength} characters`, 'tooLong');
  }
  const lower = password.toLowerCase();
  if (commonPasswords().has(lower)) {
    throw refuse('This password is one of the most common ones; choose another', 'common');
  }
  if (emailAddress && lower === emailAddress.toLowerCase()) {
    throw refuse('The password must not be your e-mail address', 'emailAddress');
  }
}

export { passwordHashOf, storePassword } from './sign-in.repository.js';
