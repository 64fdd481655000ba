import type { Insertable } from 'kysely';
import { type Db, firstWhere, insertReturning, selectWhere, updateReturning } from '../db/crud.js';
import type { CreditUsesTable, MemberCreditsTable } from '../db/schema.js';

/**
 * The `member_credits` table (what members may spend instead of paying) and the `credit_uses`
 * that spent them. Functions take the database (or the transaction of the change) first.
 */

/** The rows of a member's credits (a query to narrow and page). */
export function creditsOfMember(db: Db, memberId: number) {
  return db.selectFrom('member_credits').where('member_credits.member', '=', memberId);
}

/** A member's credits of these scopes whose period covers `date`, the soonest to lapse first. */
export function creditsCovering(db: Db, memberId: number, scopes: string[], date: string) {
  return db
    .selectFrom('member_credits')
    .selectAll()
    .where('member', '=', memberId)
    .where('scope', 'in', scopes)
    .where('fromDate', '<=', date)
    .where((eb) => eb.or([eb('untilDate', 'is', null), eb('untilDate', '>', date)]))
    .orderBy('untilDate')
    .orderBy('id')
    .execute();
}

/**
 * Sets what remains of a credit, only while it still has the amount read (`read`): two uses at
 * once cannot both spend it. The credit as written, or undefined when it changed since.
 */
export async function writeRemaining(db: Db, id: number, read: string, remaining: string, at: string) {
  const where = { id, remaining: read };
  const [credit] = await updateReturning(db, 'member_credits', where, { remaining, updatedAt: at });
  return credit;
}

/** The member credits a member package or a package credit granted. */
export function creditsGrantedBy(db: Db, source: 'memberPackage' | 'packageCredit', id: number) {
  return selectWhere(db, 'member_credits', { [source]: id }, { orderBy: ['id'] });
}

/** The credit a member package got from a package credit for the period from `fromDate`, if any. */
export function grantedCredit(db: Db, memberPackage: number, packageCredit: number, fromDate: string) {
  return firstWhere(db, 'member_credits', { memberPackage, packageCredit, fromDate }, ['id']);
}

export function insertMemberCredit(db: Db, values: Insertable<MemberCreditsTable>) {
  return insertReturning(db, 'member_credits', values);
}

// ---- credit uses ---------------------------------------------------------------------------

export async function insertCreditUse(db: Db, values: Insertable<CreditUsesTable>): Promise<void> {
  await db.insertInto('credit_uses').values(values).execute();
}

/** The credit use of a session (resource log) or booking, if it was paid from a credit. */
export function creditUseOf(db: Db, column: 'resourceLog' | 'booking', id: number) {
  return firstWhere(db, 'credit_uses', { [column]: id }, ['id']);
}

/** The rows of a credit's uses (a query to page). */
export function usesOfCredit(db: Db, creditId: number) {
  return db.selectFrom('credit_uses').where('credit_uses.memberCredit', '=', creditId);
}
