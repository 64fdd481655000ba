import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A value the hub keeps about itself (`hub_meta`, migration 0017), or undefined. */
export async function hubMeta(db: Kysely<Database>, name: string): Promise<string | undefined> {
  return (await db.selectFrom('hub_meta').select('value').where('name', '=', name).executeTakeFirst())?.value;
}

/** Stores a value unless one is there already (two hubs starting together: the first counts). */
export async function setHubMetaOnce(db: Kysely<Database>, name: string, value: string): Promise<void> {
  await db
    .insertInto('hub_meta')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** The oldest sealed API token, to try a key on (undefined in an empty database). */
export async function firstSealedToken(db: Kysely<Database>): Promise<string | undefined> {
  return (await db.selectFrom('api_keys').select('tokenEncrypted').orderBy('id').limit(1).executeTakeFirst())
    ?.tokenEncrypted;
}

/** Whether the database holds any account yet (the first start creates one). */
export async function hasAnyAccount(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').limit(1).execute()).length > 0;
}
