import type { Insertable } from 'kysely';
import { type Db, firstWhere, insertReturning, selectWhere, updateWhere } from '../db/crud.js';
import type { PaymentRequestsTable } from '../db/schema.js';

/**
 * The `payments` table, the `payment_requests` that ask for them and the members' payment
 * details (`member_payment_details`). Functions take the database (or a transaction) first.
 */

/** A member's completed payments, oldest first. */
export function completedPaymentsOf(db: Db, memberId: number) {
  return selectWhere(db, 'payments', { member: memberId, state: 'completed' }, { orderBy: ['date', 'id'] });
}

// ---- payment requests ----------------------------------------------------------------------

export function insertPaymentRequest(db: Db, values: Insertable<PaymentRequestsTable>) {
  return insertReturning(db, 'payment_requests', values);
}

/** A payment's open requests read `paid`. */
export async function markRequestsPaid(db: Db, paymentId: number, at: string): Promise<void> {
  const open = { payment: paymentId, state: 'requested' };
  await updateWhere(db, 'payment_requests', open, { state: 'paid', updatedAt: at });
}

// ---- payment details -----------------------------------------------------------------------

export type PaymentPart = 'paymentAccount' | 'paymentMethod';

/** A member's payment details row, if one was written. */
export function paymentDetailsOf(db: Db, memberId: number) {
  return firstWhere(db, 'member_payment_details', { member: memberId });
}

/**
 * Writes one part (JSON text, or null) of a member's payment details: into the row read (at its
 * lockVersion plus one) or, when there is none, into a new row.
 */
export async function writePaymentDetails(
  db: Db,
  row: { id: number; lockVersion: number } | undefined,
  member: { id: number; account: number },
  change: { part: PaymentPart; text: string | null },
  stamp: { at: string; by: number | null },
): Promise<void> {
  if (row) {
    await db
      .updateTable('member_payment_details')
      .set({
        [change.part]: change.text,
        lockVersion: row.lockVersion + 1,
        updatedAt: stamp.at,
        updatedBy: stamp.by,
      })
      .where('id', '=', row.id)
      .execute();
  } else {
    await db
      .insertInto('member_payment_details')
      .values({
        account: member.account,
        member: member.id,
        [change.part]: change.text,
        createdAt: stamp.at,
        updatedAt: stamp.at,
        updatedBy: stamp.by,
      })
      .execute();
  }
}
