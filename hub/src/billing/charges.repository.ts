import type { Insertable } from 'kysely';
import type { Db } from '../db/crud.js';
import type { ChargesTable } from '../db/schema.js';

/** The `charges` table. Functions take the database (or the transaction of the change) first. */

export function insertChargeRow(db: Db, values: Insertable<ChargesTable>) {
  return db.insertInto('charges').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The invoice and fee key of a charge (it must exist). */
export function chargeInvoiceAndFee(db: Db, id: number) {
  return db
    .selectFrom('charges')
    .select(['invoice', 'feeKey'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** The charge of a session (resource log) or booking, if there is one. */
export function chargeOfUse(db: Db, column: 'resourceLog' | 'booking', id: number) {
  return db.selectFrom('charges').select('id').where(column, '=', id).executeTakeFirst();
}

/** The charge of a package fee (its fee key), if it was charged. */
export function chargeOfFee(db: Db, feeKey: string) {
  return db.selectFrom('charges').select('id').where('feeKey', '=', feeKey).executeTakeFirst();
}

export function chargesByIds(db: Db, ids: number[]) {
  return db.selectFrom('charges').selectAll().where('id', 'in', ids).orderBy('id').execute();
}

/**
 * The charges on an invoice or, given `ids`, those charges (none when the list is empty), in
 * date order.
 */
export function chargesOfInvoice(db: Db, invoiceId: number, ids?: number[]) {
  return db
    .selectFrom('charges')
    .selectAll()
    .$if(ids === undefined, (q) => q.where('invoice', '=', invoiceId))
    .$if(ids !== undefined, (q) => q.where('id', 'in', ids?.length ? ids : [0]))
    .orderBy('dateTime')
    .orderBy('id')
    .execute();
}

/** Puts the charges on the invoice, those still on none; returns how many it took. */
export async function putChargesOnInvoice(trx: Db, invoiceId: number, ids: number[], at: string) {
  const taken = await trx
    .updateTable('charges')
    .set({ invoice: invoiceId, updatedAt: at })
    .where('id', 'in', ids)
    .where('invoice', 'is', null)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows);
}

/** Takes every charge off the invoice; returns their ids. */
export async function takeChargesOffInvoice(trx: Db, invoiceId: number, at: string): Promise<number[]> {
  const released = await trx.selectFrom('charges').select('id').where('invoice', '=', invoiceId).execute();
  await trx
    .updateTable('charges')
    .set({ invoice: null, updatedAt: at })
    .where('invoice', '=', invoiceId)
    .execute();
  return released.map((c) => c.id);
}

/** The charges of these sessions (resource logs) and bookings. */
export function chargesOfUses(db: Db, logs: number[], bookings: number[]) {
  if (logs.length + bookings.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('charges')
    .select(['id', 'resourceLog', 'booking'])
    .where((eb) =>
      eb.or([
        ...(logs.length ? [eb('resourceLog', 'in', logs)] : []),
        ...(bookings.length ? [eb('booking', 'in', bookings)] : []),
      ]),
    )
    .execute();
}
