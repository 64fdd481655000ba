import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import type {
  HouseRulesAcceptancesTable,
  HouseRulesTable,
  SignUpSettingsTable,
  SignUpsTable,
} from '../db/schema.js';

export type SignUpRow = Selectable<SignUpsTable>;
export type SignUpSettingsRow = Selectable<SignUpSettingsTable>;
export type HouseRulesRow = Selectable<HouseRulesTable>;

// ---- spaces, packages and members as sign-up reads them ----

export function spaceById(db: Db, id: number) {
  return db.selectFrom('spaces').select(['id', 'account', 'name']).where('id', '=', id).executeTakeFirst();
}

/** Spaces whose sign-up is on, first by id. */
export function openSpaces(db: Db) {
  return db
    .selectFrom('sign_up_settings')
    .innerJoin('spaces', 'spaces.id', 'sign_up_settings.space')
    .select(['spaces.id', 'spaces.name', 'spaces.account'])
    .where('sign_up_settings.enabled', '=', 1)
    .orderBy('spaces.id')
    .execute();
}

export function packagesByIds(db: Db, account: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('packages')
    .select(['id', 'name', 'description', 'state', 'setupFee', 'recurringFee', 'recurringFeePeriod'])
    .where('account', '=', account)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
}

export function courseById(db: Db, account: number, id: number) {
  return db
    .selectFrom('training_courses')
    .select(['id'])
    .where('account', '=', account)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Is this e-mail address (lower case) a member's of the account already? */
export async function emailTaken(db: Db, account: number, emailKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('members')
    .select('id')
    .where('account', '=', account)
    .where('emailKey', '=', emailKey)
    .executeTakeFirst();
  return row !== undefined;
}

// ---- settings ----

export function settingsOf(db: Db, space: number) {
  return db.selectFrom('sign_up_settings').selectAll().where('space', '=', space).executeTakeFirst();
}

export async function writeSettings(db: Db, values: Insertable<SignUpSettingsTable>) {
  const { space: _space, account: _account, ...changes } = values;
  await db
    .insertInto('sign_up_settings')
    .values(values)
    .onConflict((oc) => oc.column('space').doUpdateSet(changes))
    .execute();
}

// ---- house rules ----

export function currentHouseRules(db: Db, space: number) {
  return db
    .selectFrom('house_rules')
    .selectAll()
    .where('space', '=', space)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function insertHouseRules(db: Db, values: Insertable<HouseRulesTable>) {
  return db.insertInto('house_rules').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function recordAcceptance(db: Db, values: Insertable<HouseRulesAcceptancesTable>) {
  await db
    .insertInto('house_rules_acceptances')
    .values(values)
    .onConflict((oc) => oc.columns(['member', 'version']).doNothing())
    .execute();
}

export async function hasAccepted(db: Db, member: number, version: number): Promise<boolean> {
  const row = await db
    .selectFrom('house_rules_acceptances')
    .select('id')
    .where('member', '=', member)
    .where('version', '=', version)
    .executeTakeFirst();
  return row !== undefined;
}

/** The newest version of the rules the member accepted (null: none). */
export async function acceptedVersion(db: Db, member: number): Promise<number | null> {
  const row = await db
    .selectFrom('house_rules_acceptances')
    .select('version')
    .where('member', '=', member)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.version ?? null;
}

/** Who accepted which version of the space's rules, oldest first. */
export function acceptancesOf(db: Db, space: number) {
  return db
    .selectFrom('house_rules_acceptances as a')
    .innerJoin('members as m', 'm.id', 'a.member')
    .select(['a.member', 'm.firstName', 'm.lastName', 'm.emailAddress', 'a.version', 'a.acceptedAt', 'a.via'])
    .where('a.space', '=', space)
    .orderBy('a.acceptedAt')
    .orderBy('a.id')
    .execute();
}

// ---- sign-ups ----

export function insertSignUp(db: Db, values: Insertable<SignUpsTable>) {
  return db.insertInto('sign_ups').values(values).returningAll().executeTakeFirstOrThrow();
}

export function signUpById(db: Db, account: number | null, id: number) {
  let q = db.selectFrom('sign_ups').selectAll().where('id', '=', id);
  if (account !== null) q = q.where('account', '=', account);
  return q.executeTakeFirst();
}

export function signUpByTokenHash(db: Db, tokenHash: string) {
  return db.selectFrom('sign_ups').selectAll().where('confirmTokenHash', '=', tokenHash).executeTakeFirst();
}

/** The unconfirmed pending sign-ups of an e-mail address (lower case), any account. */
export function unconfirmedByEmail(db: Db, emailKey: string) {
  return db
    .selectFrom('sign_ups')
    .innerJoin('members', 'members.id', 'sign_ups.member')
    .selectAll('sign_ups')
    .where('members.emailKey', '=', emailKey)
    .where('sign_ups.status', '=', 'pending')
    .where('sign_ups.emailConfirmedAt', 'is', null)
    .execute();
}

export async function updateSignUp(db: Db, id: number, changes: Partial<Insertable<SignUpsTable>>) {
  await db.updateTable('sign_ups').set(changes).where('id', '=', id).execute();
}

/** Marks the sign-up's address confirmed once; false when it was confirmed already. */
export async function confirmOnce(db: Db, id: number, at: string, by: 'link' | 'admin'): Promise<boolean> {
  const result = await db
    .updateTable('sign_ups')
    .set({ emailConfirmedAt: at, emailConfirmedBy: by })
    .where('id', '=', id)
    .where('emailConfirmedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Decides a pending sign-up once; false when another request decided it first. */
export async function decideOnce(
  db: Db,
  id: number,
  changes: {
    status: 'approved' | 'rejected';
    decidedAt: string;
    decidedBy: number;
    rejectReason?: string | null;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('sign_ups')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Sign-ups of the account (null: every account) with their member's names, newest first. */
export function signUpsOf(db: Db, account: number | null, status?: string) {
  let q = db
    .selectFrom('sign_ups')
    .innerJoin('members', 'members.id', 'sign_ups.member')
    .selectAll('sign_ups')
    .select(['members.firstName', 'members.lastName', 'members.emailAddress'])
    .orderBy('sign_ups.id', 'desc');
  if (account !== null) q = q.where('sign_ups.account', '=', account);
  if (status) q = q.where('sign_ups.status', '=', status);
  return q.execute();
}

// ---- the checklist's facts ----

export async function hasTraining(db: Db, member: number, course: number, today: string): Promise<boolean> {
  const row = await db
    .selectFrom('member_trainings')
    .select('id')
    .where('member', '=', member)
    .where('trainingCourse', '=', course)
    .where((eb) => eb.or([eb('untilDate', 'is', null), eb('untilDate', '>=', today)]))
    .executeTakeFirst();
  return row !== undefined;
}

export async function hasKeyCard(db: Db, member: number): Promise<boolean> {
  const row = await db
    .selectFrom('member_keys')
    .select('id')
    .where('member', '=', member)
    .where('state', '=', 'active')
    .executeTakeFirst();
  return row !== undefined;
}

export async function hasCompletedPayment(db: Db, member: number): Promise<boolean> {
  const row = await db
    .selectFrom('payments')
    .select('id')
    .where('member', '=', member)
    .where('state', '=', 'completed')
    .executeTakeFirst();
  return row !== undefined;
}
