import type { Db } from '../db/crud.js';
import { bool } from '../db/crud.js';
import type { MemberRow } from '../identity/members.js';

/** May this member sign in at all (active, allowLogin)? */
export function canSignIn(member: MemberRow | undefined): member is MemberRow {
  return member !== undefined && member.state === 'active' && bool(member.allowLogin);
}

/**
 * The members an e-mail address signs in as, first by id, with their password hashes: active
 * members allowed to log in, of any account (one address may be a member of several).
 */
export function loginCandidates(db: Db, emailAddress: string) {
  return db
    .selectFrom('members')
    .leftJoin('member_passwords', 'member_passwords.member', 'members.id')
    .selectAll('members')
    .select('member_passwords.hash as passwordHash')
    .where('members.emailKey', '=', emailAddress.trim().toLowerCase())
    .where('members.state', '=', 'active')
    .where('members.allowLogin', '=', 1)
    .orderBy('members.id')
    .execute();
}

/** Has the member chosen a password (else a link of theirs should ask for one)? */
export async function hasPassword(db: Db, memberId: number): Promise<boolean> {
  const row = await db
    .selectFrom('member_passwords')
    .select('member')
    .where('member', '=', memberId)
    .executeTakeFirst();
  return row !== undefined;
}

export function memberById(db: Db, id: number): Promise<MemberRow | undefined> {
  return db.selectFrom('members').selectAll().where('id', '=', id).executeTakeFirst();
}

export function invitationOf(db: Db, memberId: number) {
  return db.selectFrom('member_invitations').selectAll().where('member', '=', memberId).executeTakeFirst();
}

export async function markInvited(
  db: Db,
  member: Pick<MemberRow, 'id' | 'account'>,
  invitedBy: number,
  at: string,
) {
  const status = { status: 'invited', invitedBy, invitedAt: at, acceptedAt: null };
  await db
    .insertInto('member_invitations')
    .values({ member: member.id, account: member.account, ...status })
    .onConflict((oc) => oc.column('member').doUpdateSet(status))
    .execute();
}

export async function markAccepted(db: Db, memberId: number, at: string) {
  await db
    .updateTable('member_invitations')
    .set({ status: 'accepted', acceptedAt: at })
    .where('member', '=', memberId)
    .execute();
}

/**
 * Deletes sessions and links that ended before `before`. Ended rows are kept a while so a late
 * click on a link still says "expired" or "already used" rather than "not valid".
 */
export async function purgeEnded(db: Db, before: string): Promise<void> {
  await db
    .deleteFrom('browser_sessions')
    .where((eb) => eb.or([eb('expiresAt', '<', before), eb('revokedAt', '<', before)]))
    .execute();
  await db
    .deleteFrom('sign_in_links')
    .where((eb) => eb.or([eb('expiresAt', '<', before), eb('usedAt', '<', before)]))
    .execute();
}
