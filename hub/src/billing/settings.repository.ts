import { type Kysely, sql } from 'kysely';
import { type Db, firstWhere } from '../db/crud.js';
import { isPostgres } from '../db/fast-reads.js';

/**
 * What billing reads and writes of a space's billing settings (space_billing_settings, which
 * spaces/spaces.repository.ts writes too). Functions take the database first.
 */

/** The settings row of a space; `forUpdate` locks it until the transaction ends (PostgreSQL). */
export function billingSettingsRow(db: Db, spaceId: number, forUpdate: boolean) {
  let query = (db as unknown as Kysely<any>)
    .selectFrom('space_billing_settings')
    .selectAll()
    .where('space', '=', spaceId);
  if (forUpdate && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A settings row of defaults for the space, unless it has one already. */
export async function insertDefaultBillingSettings(
  db: Db,
  space: { id: number; account: number },
  at: string,
): Promise<void> {
  await (db as unknown as Kysely<any>)
    .insertInto('space_billing_settings')
    .values({ space: space.id, account: space.account, createdAt: at, updatedAt: at })
    .onConflict((oc: any) => oc.column('space').doNothing())
    .execute();
}

/** Moves the settings' next invoice number on by one (under the row's lock). */
export async function advanceInvoiceNumber(trx: Db, settingsId: number): Promise<void> {
  await trx
    .updateTable('space_billing_settings' as any)
    .set({ nextInvoiceNumber: sql`"nextInvoiceNumber" + 1` } as any)
    .where('id', '=', settingsId)
    .execute();
}

/** The SEPA creditor fields of a space's settings, if it has settings. */
export function sepaSettings(db: Db, spaceId: number) {
  return firstWhere(db, 'space_billing_settings', { space: spaceId }, [
    'sepaCreditorId',
    'sepaAccountOwnerName',
    'sepaMandateText',
    'statementName',
  ]);
}
