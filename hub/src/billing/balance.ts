import type { Db } from '../db/crud.js';
import { type Amount, parseMoney, sum } from './money.js';

/**
 * A member's prepaid balance: everything they have paid (completed payments) minus everything
 * charged to them (every charge, invoiced or not; charges of a cancelled invoice are uninvoiced
 * again and still count once). Package fees are charges, so they count too.
 */
export async function memberBalance(db: Db, memberId: number): Promise<Amount> {
  const payments = await db
    .selectFrom('payments')
    .select('total')
    .where('member', '=', memberId)
    .where('state', '=', 'completed')
    .execute();
  const charges = await db.selectFrom('charges').select('price').where('member', '=', memberId).execute();
  return sum(payments.map((p) => parseMoney(p.total))) - sum(charges.map((c) => parseMoney(c.price)));
}
