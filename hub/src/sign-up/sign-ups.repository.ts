import {
  type Db,
  type NewRow,
  type TableRow,
  existsWhere,
  firstWhere,
  insertReturning,
  selectFirstWhere,
  selectWhere,
  updateWhere,
} from '../db/crud.js';

export type SignUpRow = TableRow<'sign_ups'>;
export type SignUpSettingsRow = TableRow<'sign_up_settings'>;
export type HouseRulesRow = TableRow<'house_rules'>;

// ---- spaces, packages and members as sign-up reads them ----

export function spaceById(db: Db, id: number) {
  return firstWhere(db, 'spaces', { id }, ['id', 'account', 'name']);
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
  return selectWhere(
    db,
    'packages',
    { account, id: ids },
    {
      columns: ['id', 'name', 'description', 'state', 'setupFee', 'recurringFee', 'recurringFeePeriod'],
      orderBy: ['id'],
    },
  );
}

export function courseById(db: Db, account: number, id: number) {
  return firstWhere(db, 'training_courses', { account, id }, ['id']);
}

/** Is this e-mail address (lower case) a member's of the account already? */
export function emailTaken(db: Db, account: number, emailKey: string): Promise<boolean> {
  return existsWhere(db, 'members', { account, emailKey });
}

// ---- settings ----

export function settingsOf(db: Db, space: number) {
  return firstWhere(db, 'sign_up_settings', { space });
}

export async function writeSettings(db: Db, values: NewRow<'sign_up_settings'>) {
  const { space: _space, account: _account, ...changes } = values;
  await db
    .insertInto('sign_up_settings')
    .values(values)
    .onConflict((oc) => oc.column('space').doUpdateSet(changes))
    .execute();
}

// ---- house rules ----

export function currentHouseRules(db: Db, space: number) {
  return selectFirstWhere(db, 'house_rules', { space }, { orderBy: ['version desc'], limit: 1 });
}

export function insertHouseRules(db: Db, values: NewRow<'house_rules'>) {
  return insertReturning(db, 'house_rules', values);
}

export async function recordAcceptance(db: Db, values: NewRow<'house_rules_acceptances'>) {
  await db
    .insertInto('house_rules_acceptances')
    .values(values)
    .onConflict((oc) => oc.columns(['member', 'version']).doNothing())
    .execute();
}

export function hasAccepted(db: Db, member: number, version: number): Promise<boolean> {
  return existsWhere(db, 'house_rules_acceptances', { member, version });
}

/** The newest version of the rules the member accepted (null: none). */
export async function acceptedVersion(db: Db, member: number): Promise<number | null> {
  const read = { columns: ['version'], orderBy: ['version desc'], limit: 1 } as const;
  const row = await selectFirstWhere(db, 'house_rules_acceptances', { member }, read);
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

export function insertSignUp(db: Db, values: NewRow<'sign_ups'>) {
  return insertReturning(db, 'sign_ups', values);
}

export function signUpById(db: Db, account: number | null, id: number) {
  return selectFirstWhere(db, 'sign_ups', { id, account: account ?? undefined });
}

export function signUpByTokenHash(db: Db, tokenHash: string) {
  return firstWhere(db, 'sign_ups', { confirmTokenHash: tokenHash });
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

export async function updateSignUp(db: Db, id: number, changes: Partial<NewRow<'sign_ups'>>) {
  await updateWhere(db, 'sign_ups', { id }, changes);
}

/** Marks the sign-up's address confirmed once; false when it was confirmed already. */
export async function confirmOnce(db: Db, id: number, at: string, by: 'link' | 'admin'): Promise<boolean> {
  const changes = { emailConfirmedAt: at, emailConfirmedBy: by };
  return (await updateWhere(db, 'sign_ups', { id, emailConfirmedAt: null }, changes)) === 1;
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
  return (await updateWhere(db, 'sign_ups', { id, status: 'pending' }, changes)) === 1;
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

export function hasKeyCard(db: Db, member: number): Promise<boolean> {
  return existsWhere(db, 'member_keys', { member, state: 'active' });
}

export function hasCompletedPayment(db: Db, member: number): Promise<boolean> {
  return existsWhere(db, 'payments', { member, state: 'completed' });
}
