import type { Insertable } from 'kysely';
import { type Db, deleteWhere, firstWhere, insertReturning, selectWhere, updateWhere } from '../db/crud.js';
import { bool } from '../db/crud.js';
import type { BrowserSessionsTable, SignInLinksTable } from '../db/schema.js';
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
  const row = await firstWhere(db, 'member_passwords', { member: memberId }, ['member']);
  return row !== undefined;
}

export { memberById } from '../identity/members.repository.js';

export function invitationOf(db: Db, memberId: number) {
  return firstWhere(db, 'member_invitations', { member: memberId });
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
  await updateWhere(db, 'member_invitations', { member: memberId }, { status: 'accepted', acceptedAt: at });
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

// ---- browser sessions ----

export function insertSession(db: Db, values: Insertable<BrowserSessionsTable>) {
  return insertReturning(db, 'browser_sessions', values);
}

/** The session of a token hash with what its caller needs of the member. */
export function sessionByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('browser_sessions')
    .innerJoin('members', 'members.id', 'browser_sessions.member')
    .selectAll('browser_sessions')
    .select([
      'members.space as spaceId',
      'members.privileges as privileges',
      'members.superuser as superuser',
      'members.state as state',
      'members.allowLogin as allowLogin',
    ])
    .where('browser_sessions.tokenHash', '=', tokenHash)
    .executeTakeFirst();
}

/** Moves an unrevoked session's last use and expiry on. */
export async function touchSession(db: Db, id: number, lastSeenAt: string, expiresAt: string) {
  await updateWhere(db, 'browser_sessions', { id, revokedAt: null }, { lastSeenAt, expiresAt });
}

/** The member's sessions neither revoked nor expired at `at`, newest first. */
export function liveSessionsOf(db: Db, memberId: number, at: string) {
  const where = { member: memberId, revokedAt: null, expiresAt: { '>': at } };
  return selectWhere(db, 'browser_sessions', where, { orderBy: ['id desc'] });
}

/** Revokes the member's unrevoked sessions (only those named, all but one); the ids revoked. */
export async function revokeSessions(
  db: Db,
  memberId: number,
  at: string,
  options: { only?: number[]; except?: number },
): Promise<number[]> {
  let query = db
    .updateTable('browser_sessions')
    .set({ revokedAt: at })
    .where('member', '=', memberId)
    .where('revokedAt', 'is', null);
  if (options.only) query = query.where('id', 'in', options.only);
  if (options.except !== undefined) query = query.where('id', '<>', options.except);
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id);
}

export async function unrevokedSessionIds(db: Db, memberId: number): Promise<number[]> {
  const rows = await selectWhere(
    db,
    'browser_sessions',
    { member: memberId, revokedAt: null },
    { columns: ['id'] },
  );
  return rows.map((r) => r.id);
}

// ---- sign-in links ----

export function insertLink(db: Db, values: Insertable<SignInLinksTable>) {
  return insertReturning(db, 'sign_in_links', values);
}

export async function deleteLink(db: Db, id: number): Promise<void> {
  await deleteWhere(db, 'sign_in_links', { id });
}

export function linkByTokenHash(db: Db, tokenHash: string) {
  return firstWhere(db, 'sign_in_links', { tokenHash });
}

/** Marks the link used; false when another request used it first. */
export async function useLink(db: Db, id: number, at: string): Promise<boolean> {
  return (await updateWhere(db, 'sign_in_links', { id, usedAt: null }, { usedAt: at })) === 1;
}

/** A new invitation supersedes the member's older unused ones (they expire now). */
export async function supersedeInvitations(db: Db, memberId: number, keepId: number, at: string) {
  await updateWhere(
    db,
    'sign_in_links',
    { member: memberId, purpose: 'invitation', usedAt: null, id: { '<>': keepId }, expiresAt: { '>': at } },
    { expiresAt: at },
  );
}

// ---- passwords ----

export async function passwordHashOf(db: Db, memberId: number): Promise<string | null> {
  const row = await firstWhere(db, 'member_passwords', { member: memberId }, ['hash']);
  return row?.hash ?? null;
}

export async function storePassword(db: Db, memberId: number, passwordHash: string, at: string) {
  await db
    .insertInto('member_passwords')
    .values({ member: memberId, hash: passwordHash, updatedAt: at })
    .onConflict((oc) => oc.column('member').doUpdateSet({ hash: passwordHash, updatedAt: at }))
    .execute();
}
