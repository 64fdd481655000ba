import { type Insertable, sql } from 'kysely';
import {
  type Db,
  allWhere,
  deleteWhere,
  firstWhere,
  insertReturning,
  selectWhere,
  updateWhere,
} from '../db/crud.js';
import type { InvoicesTable } from '../db/schema.js';

/**
 * The `invoices` table and the `payment_allocations` that put payments on them. Functions take
 * the database (or the transaction of the change) first.
 */

export function insertInvoice(trx: Db, values: Insertable<InvoicesTable>) {
  return insertReturning(trx, 'invoices', values);
}

/** Writes what has been paid on an invoice and its state. */
export async function writeInvoicePaid(db: Db, id: number, paid: string, state: string, at: string) {
  await updateWhere(db, 'invoices', { id }, { paid, state, updatedAt: at });
}

/**
 * Cancels an invoice at the lockVersion read (and only one not cancelled yet), counting the
 * version on. False when it changed since (nothing written).
 */
export async function writeInvoiceCancelled(
  trx: Db,
  id: number,
  lockVersion: number,
  stamp: { at: string; by: number | null },
): Promise<boolean> {
  const cancelled = await updateWhere(
    trx,
    'invoices',
    { id, state: { '<>': 'cancelled' }, lockVersion },
    {
      state: 'cancelled',
      paid: '0.00',
      lockVersion: sql`"lockVersion" + 1`,
      updatedAt: stamp.at,
      updatedBy: stamp.by,
    },
  );
  return cancelled === 1;
}

/**
 * A member's unpaid invoices (only those of `ids` when given), oldest first. Without `ids`, not
 * those in SEPA collection: the bank is collecting them already (billing/sepa.ts).
 */
export function unpaidInvoicesOf(db: Db, memberId: number, ids: number[] | null) {
  let query = db
    .selectFrom('invoices')
    .selectAll()
    .where('member', '=', memberId)
    .where('state', '=', 'unpaid');
  if (ids) query = query.where('id', 'in', ids.length > 0 ? ids : [0]);
  else
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('sepa_debits')
            .select('sepa_debits.id')
            .whereRef('sepa_debits.invoice', '=', 'invoices.id')
            .where('sepa_debits.state', '=', 'inCollection'),
        ),
      ),
    );
  return query.orderBy('date').orderBy('id').execute();
}

/** Which of these invoices are the member's, with their states. */
export function invoiceStatesOf(db: Db, memberId: number, ids: number[]) {
  return selectWhere(db, 'invoices', { member: memberId, id: ids }, { columns: ['id', 'state'] });
}

// ---- payment allocations -------------------------------------------------------------------

/** The allocations of these invoices (or payments), ordered by the other side. */
export function allocationsOfIds(db: Db, side: 'invoice' | 'payment', ids: number[]) {
  return selectWhere(
    db,
    'payment_allocations',
    { [side]: ids },
    { columns: ['invoice', 'payment', 'amount'], orderBy: [side === 'invoice' ? 'payment' : 'invoice'] },
  );
}

/** The amounts put on an invoice (`side` invoice) or put by a payment (`side` payment). */
export function allocatedAmounts(db: Db, side: 'invoice' | 'payment', id: number) {
  return allWhere(db, 'payment_allocations', { [side]: id }, ['amount']);
}

/** The amount of a payment on an invoice, if any. */
export function allocationOf(db: Db, paymentId: number, invoiceId: number) {
  return firstWhere(db, 'payment_allocations', { payment: paymentId, invoice: invoiceId }, ['amount']);
}

/** Sets the amount of a payment on an invoice: the allocation read (`exists`) or a new one. */
export async function writeAllocation(
  db: Db,
  allocation: { payment: number; invoice: number; amount: string },
  exists: boolean,
): Promise<void> {
  if (exists) {
    const which = { payment: allocation.payment, invoice: allocation.invoice };
    await updateWhere(db, 'payment_allocations', which, { amount: allocation.amount });
  } else {
    await db.insertInto('payment_allocations').values(allocation).execute();
  }
}

export async function deleteAllocationsOfInvoice(trx: Db, invoiceId: number): Promise<void> {
  await deleteWhere(trx, 'payment_allocations', { invoice: invoiceId });
}

/** Takes a payment off every invoice; returns the invoices it was on. */
export async function deleteAllocationsOfPayment(db: Db, paymentId: number): Promise<number[]> {
  const rows = await allWhere(db, 'payment_allocations', { payment: paymentId }, ['invoice']);
  await deleteWhere(db, 'payment_allocations', { payment: paymentId });
  return rows.map((r) => r.invoice);
}
