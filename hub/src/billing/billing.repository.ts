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

/**
 * How many members hold each package on `today` (a space-local date): member packages that have
 * started and not ended, each member counted once per package.
 */
export async function packageMemberCounts(
  db: Db,
  ids: number[],
  today: string,
): Promise<Map<number, number>> {
  const counts = new Map<number, number>(ids.map((id) => [id, 0]));
  if (ids.length === 0) return counts;
  const rows = await db
    .selectFrom('member_packages')
    .select(['package', (eb) => eb.fn.count<number>('member').distinct().as('n')])
    .where('package', 'in', ids)
    .where('fromDate', '<=', today)
    .where((eb) => eb.or([eb('untilDate', 'is', null), eb('untilDate', '>=', today)]))
    .groupBy('package')
    .execute();
  for (const r of rows) counts.set(r.package, Number(r.n));
  return counts;
}

/** The charges a member package made, oldest first (what giving it bills). */
export function chargesOfMemberPackage(db: Db, memberPackage: number) {
  return db
    .selectFrom('charges')
    .select(['dateTime', 'description', 'price', 'taxPercent'])
    .where('memberPackage', '=', memberPackage)
    .orderBy('dateTime')
    .orderBy('id')
    .execute();
}

/** The credits a member package granted. */
export function creditsOfMemberPackage(db: Db, memberPackage: number) {
  return db
    .selectFrom('member_credits')
    .select(['scope', 'amount', 'fromDate', 'untilDate'])
    .where('memberPackage', '=', memberPackage)
    .orderBy('id')
    .execute();
}
