import type { Insertable } from 'kysely';
import { type Db, allWhere, firstWhere, insertReturning, selectWhere, updateWhere } from '../db/crud.js';
import type { ChargesTable } from '../db/schema.js';

/** The `charges` table. Functions take the database (or the transaction of the change) first. */

export function insertChargeRow(db: Db, values: Insertable<ChargesTable>) {
  return insertReturning(db, 'charges', values);
}

/** The invoice and fee key of a charge (it must exist). */
export async function chargeInvoiceAndFee(db: Db, id: number) {
  const charge = await firstWhere(db, 'charges', { id }, ['invoice', 'feeKey']);
  if (!charge) throw new Error(`No charge ${id}`);
  return charge;
}

/** The charge of a session (resource log) or booking, if there is one. */
export function chargeOfUse(db: Db, column: 'resourceLog' | 'booking', id: number) {
  return firstWhere(db, 'charges', { [column]: id }, ['id']);
}

/** The charge of a package fee (its fee key), if it was charged. */
export function chargeOfFee(db: Db, feeKey: string) {
  return firstWhere(db, 'charges', { feeKey }, ['id']);
}

export function chargesByIds(db: Db, ids: number[]) {
  return selectWhere(db, 'charges', { id: ids }, { orderBy: ['id'] });
}

/**
 * The charges on an invoice or, given `ids`, those charges (none when the list is empty), in
 * date order.
 */
export function chargesOfInvoice(db: Db, invoiceId: number, ids?: number[]) {
  const where = ids === undefined ? { invoice: invoiceId } : { id: ids };
  return selectWhere(db, 'charges', where, { orderBy: ['dateTime', 'id'] });
}

/** Puts the charges on the invoice, those still on none; returns how many it took. */
export function putChargesOnInvoice(trx: Db, invoiceId: number, ids: number[], at: string) {
  return updateWhere(trx, 'charges', { id: ids, invoice: null }, { invoice: invoiceId, updatedAt: at });
}

/** Takes every charge off the invoice; returns their ids. */
export async function takeChargesOffInvoice(trx: Db, invoiceId: number, at: string): Promise<number[]> {
  const released = await allWhere(trx, 'charges', { invoice: invoiceId }, ['id']);
  await updateWhere(trx, 'charges', { invoice: invoiceId }, { invoice: null, updatedAt: at });
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
