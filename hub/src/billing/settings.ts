import type { Kysely } from 'kysely';
import type { Db } from '../db/crud.js';
import { isPostgres } from '../db/fast-reads.js';

/** The billing settings of a space that billing reads (space_billing_settings, migration 0003). */
export interface BillingSettings {
  id: number;
  space: number;
  account: number;
  currency: string;
  taxPercent: string;
  invoiceNumberPrefix: string;
  nextInvoiceNumber: number;
  invoiceHeader: string | null;
  invoiceFooter: string | null;
  defaultInvoiceDeadline: number;
  defaultInvoiceDeadlineUnit: string;
}

/**
 * The space's billing settings row. Spaces get one when they are made; a space that somehow has
 * none gets the defaults now. `forUpdate` locks the row until the transaction ends (PostgreSQL;
 * SQLite runs one write transaction at a time anyway): invoice numbers are taken under this lock.
 * `at` stamps a row made now (the hub's clock).
 */
export async function billingSettingsFor(
  db: Db,
  spaceId: number,
  options: { forUpdate?: boolean; at: string },
): Promise<BillingSettings> {
  const anyDb = db as unknown as Kysely<any>;
  const read = async () => {
    let q = anyDb.selectFrom('space_billing_settings').selectAll().where('space', '=', spaceId);
    if (options.forUpdate && isPostgres(db)) q = q.forUpdate();
    return (await q.executeTakeFirst()) as BillingSettings | undefined;
  };
  const row = await read();
  if (row) return row;
  const space = await db
    .selectFrom('spaces')
    .select(['id', 'account'])
    .where('id', '=', spaceId)
    .executeTakeFirst();
  if (!space) throw new Error(`Space ${spaceId} does not exist`);
  const at = options.at;
  await anyDb
    .insertInto('space_billing_settings')
    .values({ space: space.id, account: space.account, createdAt: at, updatedAt: at })
    .onConflict((oc: any) => oc.column('space').doNothing())
    .execute();
  return (await read()) as BillingSettings;
}

/** The time zone of a space (UTC when unknown). */
export async function spaceTimezone(db: Db, spaceId: number): Promise<string> {
  const row = await db.selectFrom('spaces').select('timezone').where('id', '=', spaceId).executeTakeFirst();
  return row?.timezone ?? 'UTC';
}
