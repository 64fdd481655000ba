import { ConfigError } from '@makerspace/shared';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';
import { safeEqual, type TokenBox } from './secrets.js';

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
  const stored = async () =>
    (await db.selectFrom('hub_meta').select('value').where('name', '=', 'keyCheck').executeTakeFirst())
      ?.value;
  let value = await stored();
  if (value === undefined) {
    const sealed = await db
      .selectFrom('api_keys')
      .select('tokenEncrypted')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (sealed) {
      try {
        tokens.open(sealed.tokenEncrypted);
      } catch {
        throw new SecretKeyMismatch(secretFile);
      }
    }
    // Two hubs of a cluster may start together: the first one's value counts.
    await db
      .insertInto('hub_meta')
      .values({ name: 'keyCheck', value: mine })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    value = await stored();
  }
  if (value === undefined || !safeEqual(value, mine)) throw new SecretKeyMismatch(secretFile);
}
