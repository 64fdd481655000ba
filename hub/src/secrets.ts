import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hash,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '@makerspace/shared';
import type { Kysely } from 'kysely';
import { firstSealedToken, hubMeta, setHubMetaOnce } from './db/hub-meta.js';
import type { Database } from './db/schema.js';

/** Hashes a token for look-up. Tokens are 122 random bits, so a plain SHA-256 is enough. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Constant-time comparison of two strings (of any lengths). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export function newToken(): string {
  return randomUUID();
}

/** 32 random bytes, base64url: sign-in link tokens and browser session tokens. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Encrypts and decrypts stored tokens with the hub's secret key (AES-256-GCM). */
export class TokenBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the hub secret must be 32 bytes');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** HMAC-SHA256 under the hub secret, base64url: values derived rather than stored (CSRF tokens). */
  mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * Loads the hub secret (64 hex characters) from `file`, creating it with mode 0600 when absent.
 * A readable-by-others secret file is refused: it protects every stored token.
 */
export function loadSecret(file: string): Buffer {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) {
    throw new Error(
      `${file}: the hub secret file must not be readable by others (mode ${mode.toString(8)}; chmod 600)`,
    );
  }
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) throw new Error(`${file}: expected 64 hex characters`);
  return Buffer.from(text, 'hex');
}

/** What the check value is a MAC of: it proves the key without revealing it. */
const checkText = 'makerspace-hub key check v1';

/** The hub's secret key is not the one the database was written with: starting would fail later. */
export class SecretKeyMismatch extends ConfigError {
  constructor(secretFile: string) {
    super('HUB_SECRET_FILE', [`${secretFile} is not the key this database was written with`]);
    this.message = `cannot start: HUB_SECRET_FILE (${secretFile}) is not the secret key this database was written with; give every hub the same key file (copy it from the first hub or the backup) and start again`;
    this.name = 'SecretKeyMismatch';
  }
}

/**
 * Refuses a secret key other than the one the database's sealed values (tokens, switch-on codes,
 * webhook secrets and URLs) were written with, before anything is served. The database keeps a
 * check value (`hub_meta.keyCheck`, an HMAC of a fixed text under the key). A database without
 * one (made before it existed) gets it now, once the key opens a token stored there already.
 */
export async function checkSecretKey(
  db: Kysely<Database>,
  tokens: TokenBox,
  secretFile: string,
): Promise<void> {
  const mine = tokens.mac(checkText);
  let value = await hubMeta(db, 'keyCheck');
  if (value === undefined) {
    const sealed = await firstSealedToken(db);
    if (sealed) {
      try {
        tokens.open(sealed);
      } catch {
        throw new SecretKeyMismatch(secretFile);
      }
    }
    // Two hubs of a cluster may start together: the first one's value counts.
    await setHubMetaOnce(db, 'keyCheck', mine);
    value = await hubMeta(db, 'keyCheck');
  }
  if (value === undefined || !safeEqual(value, mine)) throw new SecretKeyMismatch(secretFile);
}
