import type { Db } from '../db/crud.js';

/**
 * The billing area's reads for the invoice run and the open balances. Functions take the
 * database (or a transaction) first.
 */

/** Members of the account with charges on no invoice yet (only `member` when given), by id. */
export async function membersWithUninvoicedCharges(
  db: Db,
  accountId: number,
  member?: number,
): Promise<number[]> {
  let query = db
    .selectFrom('charges')
    .select('member')
    .distinct()
    .where('account', '=', accountId)
    .where('invoice', 'is', null);
  if (member !== undefined) query = query.where('member', '=', member);
  return (await query.orderBy('member').execute()).map((r) => r.member);
}

/** A member's charges on no invoice yet, oldest first (what their next invoice takes). */
export function uninvoicedCharges(db: Db, memberId: number) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('member', '=', memberId)
    .where('invoice', 'is', null)
    .orderBy('dateTime')
    .orderBy('id')
    .execute();
}

/**
 * The amounts behind every member's balance in an account: completed payments, charges (with
 * whether they are invoiced), and the invoices that are not cancelled. Summed by the caller in
 * exact money, never as floating point in SQL.
 */
export async function balanceAmounts(db: Db, accountId: number) {
  const [payments, charges, invoices] = await Promise.all([
    db
      .selectFrom('payments')
      .select(['member', 'total'])
      .where('account', '=', accountId)
      .where('state', '=', 'completed')
      .execute(),
    db
      .selectFrom('charges')
      .select(['member', 'price', 'invoice'])
      .where('account', '=', accountId)
      .execute(),
    db
      .selectFrom('invoices')
      .select(['member', 'total', 'paid'])
      .where('account', '=', accountId)
      .where('state', '=', 'unpaid')
      .execute(),
  ]);
  return { payments, charges, invoices };
}

/** Names and numbers of these members (for lists that show whose a line is). */
export function memberNames(db: Db, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('members')
    .select(['id', 'firstName', 'lastName', 'memberNumber'])
    .where('id', 'in', ids)
    .execute();
}
