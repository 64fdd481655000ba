import type { Insertable } from 'kysely';
import type { Db } from '../db/crud.js';
import type { BridgePairingsTable } from '../db/schema.js';

/* The `bridge_pairings` table: one-time codes that give a resource's bridge its key. */

/** A new code replaces any unredeemed earlier one of the resource. */
export async function replacePairing(db: Db, pairing: Insertable<BridgePairingsTable>): Promise<void> {
  await db
    .deleteFrom('bridge_pairings')
    .where('resource', '=', pairing.resource)
    .where('redeemedAt', 'is', null)
    .execute();
  await db.insertInto('bridge_pairings').values(pairing).execute();
}

/** Redeems the unexpired, unredeemed code with this hash (once); undefined otherwise. */
export function redeemPairingCode(db: Db, codeHash: string, at: string) {
  return db
    .updateTable('bridge_pairings')
    .set({ redeemedAt: at })
    .where('codeHash', '=', codeHash)
    .where('redeemedAt', 'is', null)
    .where('expiresAt', '>', at)
    .returningAll()
    .executeTakeFirst();
}
