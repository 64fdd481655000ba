import type { Kysely, SelectQueryBuilder } from 'kysely';
import { type Db, allWhere, selectWhere } from '../db/crud.js';
import type { Database } from '../db/schema.js';

/**
 * The billing area's reads across its tables (the invoice run, balances, visibility) and, at the
 * end, what it reads and writes on other areas' tables. Functions take the database (or a
 * transaction) first.
 */

/** The tables whose rows belong to an account and mostly to one member of it. */
export type BillingTable = 'charges' | 'invoices' | 'payments' | 'jobs';

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
  return selectWhere(db, 'charges', { member: memberId, invoice: null }, { orderBy: ['dateTime', 'id'] });
}

/**
 * The amounts behind every member's balance in an account: completed payments, charges (with
 * whether they are invoiced), and the invoices that are not cancelled. Summed by the caller in
 * exact money, never as floating point in SQL.
 */
export async function balanceAmounts(db: Db, accountId: number) {
  const [payments, charges, invoices] = await Promise.all([
    allWhere(db, 'payments', { account: accountId, state: 'completed' }, ['member', 'total']),
    allWhere(db, 'charges', { account: accountId }, ['member', 'price', 'invoice']),
    allWhere(db, 'invoices', { account: accountId, state: 'unpaid' }, ['member', 'total', 'paid']),
  ]);
  return { payments, charges, invoices };
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
  return selectWhere(
    db,
    'charges',
    { memberPackage },
    { columns: ['dateTime', 'description', 'price', 'taxPercent'], orderBy: ['dateTime', 'id'] },
  );
}

/** The credits a member package granted. */
export function creditsOfMemberPackage(db: Db, memberPackage: number) {
  const read = { columns: ['scope', 'amount', 'fromDate', 'untilDate'], orderBy: ['id'] } as const;
  return selectWhere(db, 'member_credits', { memberPackage }, read);
}

/**
 * The billing records of a table (charges, invoices, payments, jobs), narrowed to one account
 * and to one member's (`member`), or to none (`none`): the visibility rules decide which.
 */
export function billingRows<T extends BillingTable>(
  db: Db,
  table: T,
  only: { account?: number; member?: { column: string; id: number }; none?: boolean },
): SelectQueryBuilder<Database, T, object> {
  let query = db.selectFrom(table) as unknown as SelectQueryBuilder<any, any, object>;
  if (only.account !== undefined) query = query.where(`${table}.account` as string, '=', only.account);
  if (only.member) query = query.where(`${table}.${only.member.column}` as string, '=', only.member.id);
  if (only.none) query = query.where(`${table}.id` as string, '=', -1);
  return query as SelectQueryBuilder<Database, T, object>;
}

/**
 * A member's completed payments and all their charges (what their balance is made of), read one
 * after the other.
 */
export async function memberBalanceAmounts(db: Db, memberId: number) {
  const payments = await allWhere(db, 'payments', { member: memberId, state: 'completed' }, ['total']);
  const charges = await allWhere(db, 'charges', { member: memberId }, ['price']);
  return { payments, charges };
}

/**
 * The open items of a member's balance, read at once: uninvoiced charges, invoices that are not
 * cancelled (nor a cancellation), completed payments.
 */
export async function memberBalanceRows(db: Db, memberId: number) {
  const [charges, invoices, payments] = await Promise.all([
    selectWhere(
      db,
      'charges',
      { member: memberId, invoice: null },
      { columns: ['id', 'dateTime', 'description', 'price', 'booking'] },
    ),
    selectWhere(
      db,
      'invoices',
      { member: memberId, state: { '<>': 'cancelled' }, cancelledInvoice: null },
      { columns: ['id', 'date', 'number', 'total', 'paid', 'state'] },
    ),
    allWhere(db, 'payments', { member: memberId, state: 'completed' }, ['id', 'date', 'total', 'notes']),
  ]);
  return { charges, invoices, payments };
}

// ---- other areas' tables that billing reads or writes (their owners' repositories to take them) ----

/**
 * Whether the booking, resource log or member package is the member's (of the account): what a
 * manual charge may name (bookings, resource_logs, member_packages).
 */
export async function isMembersUse(
  db: Db,
  table: 'bookings' | 'resource_logs' | 'member_packages',
  id: number,
  owner: { account: number; member: number },
): Promise<boolean> {
  const anyDb = db as unknown as Kysely<any>;
  const row = await anyDb
    .selectFrom(table)
    .select('id')
    .where('id', '=', id)
    .where('account', '=', owner.account)
    .where('member', '=', owner.member)
    .executeTakeFirst();
  return row !== undefined;
}
