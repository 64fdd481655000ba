import type {
  HouseRulesRecord,
  SignUpChecklist,
  SignUpCreate,
  SignUpOffer,
  SignUpRecord,
  SignUpSettingsRecord,
  SignUpSettingsUpdate,
} from '@makerspace/shared';
import type { Logger } from '@makerspace/shared';
import type { Clock } from '../clock.js';
import { insertRow } from '../db/collection-rows.js';
import { type Db, bool, isUniqueViolation, parseJson } from '../db/crud.js';
import { emitEvent } from '../db/outbox.js';
import { conflict, HttpError, notFound, unprocessable } from '../errors.js';
import { adminOnly, type Caller, seesAccount } from '../kernel/caller.js';
import { createMemberPackage } from '../billing/package-billing.js';
import { emitMember, memberRecord, type MemberRow, writeMemberFields } from '../identity/members.js';
import { memberById } from '../identity/members.repository.js';
import { sanitizeRichText } from '../rich-text.js';
import { hashToken, newSecretToken, safeEqual } from '../secrets.js';
import type { Mailer } from '../sign-in/mailer.js';
import {
  acceptancesOf,
  confirmOnce,
  courseById,
  currentHouseRules,
  decideOnce,
  emailTaken,
  hasAccepted,
  hasCompletedPayment,
  hasKeyCard,
  hasTraining,
  type HouseRulesRow,
  insertHouseRules,
  insertSignUp,
  openSpaces,
  packagesByIds,
  recordAcceptance,
  type SignUpRow,
  type SignUpSettingsRow,
  settingsOf,
  signUpById,
  signUpByTokenHash,
  signUpsOf,
  spaceById,
  unconfirmedByEmail,
  updateSignUp,
  writeSettings,
  acceptedVersion,
} from './sign-ups.repository.js';

/** What the sign-up functions need of the hub (a part of the HTTP services). */
export interface SignUpContext {
  db: Db;
  clock: Clock;
  logger: Logger;
  linkBase: string;
  mailer: Mailer | null;
  events: { transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> };
}

/** A confirmation link stays valid two days: long enough to find the mail, short enough to forget. */
export const confirmLifetimeMs = 2 * 86_400_000;

const signUpClosed = () => new HttpError(404, 'Sign-up is not open at this space', { signUpClosed: true });

/** The space of an admin's request: one of the caller's account (404 otherwise). */
export async function adminSpace(db: Db, caller: Caller, spaceId: number) {
  adminOnly(caller);
  const space = await spaceById(db, spaceId);
  if (!space || !seesAccount(caller, space.account)) throw notFound('Space');
  return space;
}

// ---- house rules ----

export function houseRulesRecord(space: number, row: HouseRulesRow | undefined): HouseRulesRecord {
  return {
    space,
    version: row?.version ?? 0,
    houseRules: row?.houseRules ?? '',
    waiver: row?.waiver ?? '',
    createdAt: row?.createdAt ?? null,
  };
}

/** Saves the space's house rules and waiver: a changed text makes a new version, an unchanged one does not. */
export async function saveHouseRules(
  db: Db,
  caller: Caller,
  spaceId: number,
  body: { houseRules: string; waiver: string },
  at: string,
): Promise<HouseRulesRecord> {
  const space = await adminSpace(db, caller, spaceId);
  const houseRules = sanitizeRichText(body.houseRules) ?? '';
  const waiver = sanitizeRichText(body.waiver) ?? '';
  const current = await currentHouseRules(db, space.id);
  if (current && current.houseRules === houseRules && current.waiver === waiver) {
    return houseRulesRecord(space.id, current);
  }
  try {
    const row = await insertHouseRules(db, {
      account: space.account,
      space: space.id,
      version: (current?.version ?? 0) + 1,
      houseRules,
      waiver,
      createdAt: at,
      createdBy: caller.memberId,
    });
    return houseRulesRecord(space.id, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('Someone else saved the house rules just now: reload them');
    throw err;
  }
}

/** The public house rules of a space whose sign-up is on (404 otherwise). */
export async function publicHouseRules(db: Db, spaceId: number): Promise<HouseRulesRecord> {
  const settings = await settingsOf(db, spaceId);
  if (!settings || !bool(settings.enabled)) throw signUpClosed();
  return houseRulesRecord(spaceId, await currentHouseRules(db, spaceId));
}

/** The caller's space's current rules and whether the caller accepted that version. */
export async function userHouseRules(db: Db, caller: Caller) {
  const rules = houseRulesRecord(caller.spaceId, await currentHouseRules(db, caller.spaceId));
  const accepted = rules.version === 0 || (await hasAccepted(db, caller.memberId, rules.version));
  return { ...rules, accepted };
}

/** The caller accepts the current version of their space's rules (an older one is refused, 409). */
export async function acceptHouseRules(db: Db, caller: Caller, version: number, at: string) {
  const current = await currentHouseRules(db, caller.spaceId);
  if (!current) throw notFound('House rules');
  if (current.version !== version) {
    throw conflict(`The house rules changed: read version ${current.version} and accept that one`, {
      field: 'version',
      currentVersion: current.version,
    });
  }
  await recordAcceptance(db, {
    account: caller.accountId,
    space: caller.spaceId,
    member: caller.memberId,
    version,
    acceptedAt: at,
    via: 'app',
  });
  return userHouseRules(db, caller);
}

/** Who accepted which version, for the admins' export. */
export async function houseRulesAcceptances(db: Db, caller: Caller, spaceId: number) {
  const space = await adminSpace(db, caller, spaceId);
  const rows = await acceptancesOf(db, space.id);
  return rows.map((r) => ({ ...r, via: r.via as 'signUp' | 'app' }));
}

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  // A leading =, +, - or @ would be a formula in a spreadsheet.
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export function acceptancesCsv(rows: Awaited<ReturnType<typeof houseRulesAcceptances>>): string {
  const head = ['member', 'firstName', 'lastName', 'emailAddress', 'version', 'acceptedAt', 'via'];
  const lines = rows.map((r) =>
    [r.member, r.firstName, r.lastName, r.emailAddress, r.version, r.acceptedAt, r.via]
      .map(csvCell)
      .join(','),
  );
  return `${[head.join(','), ...lines].join('\r\n')}\r\n`;
}

// ---- settings ----

export function settingsRecord(
  space: number,
  row: SignUpSettingsRow | undefined,
  rules: HouseRulesRow | undefined,
): SignUpSettingsRecord {
  return {
    space,
    enabled: bool(row?.enabled),
    packages: parseJson<number[]>(row?.packages ?? '[]') ?? [],
    requireTraining: row?.requireTraining ?? null,
    requireKeyCard: bool(row?.requireKeyCard),
    requireFirstPayment: bool(row?.requireFirstPayment),
    updatedAt: row?.updatedAt ?? null,
    houseRules: houseRulesRecord(space, rules),
  };
}

export async function readSettings(db: Db, caller: Caller, spaceId: number) {
  const space = await adminSpace(db, caller, spaceId);
  return settingsRecord(space.id, await settingsOf(db, space.id), await currentHouseRules(db, space.id));
}

/**
 * Saves what a space asks of strangers. Turning sign-up on needs at least one active package of
 * the account and saved house rules (a stranger must accept a version); every refusal is 422.
 */
export async function saveSettings(
  db: Db,
  caller: Caller,
  spaceId: number,
  body: SignUpSettingsUpdate,
  at: string,
): Promise<SignUpSettingsRecord> {
  const space = await adminSpace(db, caller, spaceId);
  const ids = [...new Set(body.packages)];
  const found = await packagesByIds(db, space.account, ids);
  const unknown = ids.filter((id) => !found.some((p) => p.id === id && p.state === 'active'));
  if (unknown.length > 0) {
    throw unprocessable(`Package ${unknown.join(', ')} does not exist or is archived`, {
      field: 'packages',
      unknownPackages: unknown,
    });
  }
  if (body.requireTraining != null && !(await courseById(db, space.account, body.requireTraining))) {
    throw unprocessable(`Training course ${body.requireTraining} does not exist`, {
      field: 'requireTraining',
    });
  }
  const rules = await currentHouseRules(db, space.id);
  if (body.enabled && ids.length === 0) {
    throw unprocessable('Choose at least one package to offer before turning sign-up on', {
      field: 'packages',
    });
  }
  if (body.enabled && !rules) {
    throw unprocessable('Save the house rules and waiver before turning sign-up on', { field: 'enabled' });
  }
  await writeSettings(db, {
    space: space.id,
    account: space.account,
    enabled: body.enabled ? 1 : 0,
    packages: JSON.stringify(ids),
    requireTraining: body.requireTraining ?? null,
    requireKeyCard: body.requireKeyCard ? 1 : 0,
    requireFirstPayment: body.requireFirstPayment ? 1 : 0,
    updatedAt: at,
    updatedBy: caller.memberId,
  });
  return settingsRecord(space.id, await settingsOf(db, space.id), rules);
}

// ---- the join page ----

/** Spaces open to sign-up (id and name only). */
export async function signUpSpaces(db: Db) {
  return (await openSpaces(db)).map((s) => ({ id: s.id, name: s.name }));
}

async function openSpace(db: Db, spaceId: number | undefined) {
  let id = spaceId;
  if (id === undefined) {
    const open = await openSpaces(db);
    if (open.length !== 1) {
      throw new HttpError(
        open.length === 0 ? 404 : 400,
        open.length === 0 ? 'Sign-up is not open' : 'Choose the space to join (`space`)',
        open.length === 0 ? { signUpClosed: true } : { field: 'space' },
      );
    }
    id = open[0].id;
  }
  const space = await spaceById(db, id);
  const settings = space ? await settingsOf(db, space.id) : undefined;
  if (!space || !settings || !bool(settings.enabled)) throw signUpClosed();
  return { space, settings };
}

/** What the join page shows: the space, the packages offered and the current house rules. */
export async function signUpOffer(db: Db, spaceId: number | undefined): Promise<SignUpOffer> {
  const { space, settings } = await openSpace(db, spaceId);
  const ids = parseJson<number[]>(settings.packages) ?? [];
  const packages = (await packagesByIds(db, space.account, ids)).filter((p) => p.state === 'active');
  return {
    space: { id: space.id, name: space.name },
    packages: packages.map(({ state: _state, ...p }) => p),
    houseRules: houseRulesRecord(space.id, await currentHouseRules(db, space.id)),
  };
}

export const confirmUrl = (base: string, token: string) => `${base}/join/confirm#token=${token}`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function confirmMail(member: MemberRow, space: string, url: string) {
  const lines = [
    `Hello ${member.firstName},`,
    `thank you for signing up at ${space}. Open this link to confirm your e-mail address:`,
    url,
    `The link works for 2 days. After that, ask for a new one on the join page. If you did not sign up, ignore this e-mail.`,
    `— ${space}`,
  ];
  return {
    to: member.emailAddress as string,
    subject: `Confirm your e-mail address for ${space}`,
    text: `${lines.join('\n\n')}\n`,
    html: lines
      .map((l) =>
        l === url ? `<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>` : `<p>${escapeHtml(l)}</p>`,
      )
      .join('\n'),
  };
}

/** A new confirmation token for the sign-up (older links stop working); answers the link. */
async function newConfirmLink(ctx: SignUpContext, db: Db, signUp: Pick<SignUpRow, 'id'>) {
  const token = newSecretToken();
  await updateSignUp(db, signUp.id, {
    confirmTokenHash: hashToken(token),
    confirmExpiresAt: new Date(ctx.clock.now().getTime() + confirmLifetimeMs).toISOString(),
  });
  return confirmUrl(ctx.linkBase, token);
}

/** Mails the link; false without a mailer or when the mail server refused (logged without the link). */
async function mailConfirmLink(ctx: SignUpContext, member: MemberRow, spaceName: string, url: string) {
  if (!ctx.mailer) return false;
  try {
    await ctx.mailer.send(confirmMail(member, spaceName, url));
    return true;
  } catch (err) {
    ctx.logger.error(
      { member: member.id, error: (err as Error).message },
      'could not send a sign-up confirmation',
    );
    return false;
  }
}

/**
 * A stranger signs up: a pending member (no access, no charges), the sign-up with the chosen
 * package, the accepted version of the house rules, member_created and signUp_created in one
 * transaction; then the confirmation link is mailed. A filled honeypot field drops the request
 * silently (answers as if it worked, creates nothing).
 */
export async function createSignUp(
  ctx: SignUpContext,
  body: SignUpCreate,
  ipAddress: string | null,
): Promise<{ status: 'pending'; confirmationMailed: boolean }> {
  const { space, settings } = await openSpace(ctx.db, body.space);
  // The answer a real sign-up would get, so a bot learns nothing from it.
  if (body.website) return { status: 'pending', confirmationMailed: ctx.mailer !== null };
  const offered = parseJson<number[]>(settings.packages) ?? [];
  const [pkg] = offered.includes(body.package)
    ? await packagesByIds(ctx.db, space.account, [body.package])
    : [];
  if (pkg?.state !== 'active') {
    throw unprocessable(`Package ${body.package} is not offered at this space`, { field: 'package' });
  }
  const rules = await currentHouseRules(ctx.db, space.id);
  if (!rules || rules.version !== body.acceptedVersion) {
    throw unprocessable(`The house rules changed: read version ${rules?.version ?? 0} and accept that one`, {
      field: 'acceptedVersion',
      currentVersion: rules?.version ?? 0,
    });
  }
  const emailAddress = body.emailAddress.trim();
  const emailKey = emailAddress.toLowerCase();
  const used = () =>
    conflict('This e-mail address cannot sign up here. If it is yours, sign in or ask for a sign-in link.', {
      field: 'emailAddress',
    });
  if (await emailTaken(ctx.db, space.account, emailKey)) throw used();
  const at = ctx.clock.now().toISOString();
  let created: { member: MemberRow; url: string };
  try {
    created = await ctx.events.transaction(async (trx) => {
      const member = await insertRow(
        trx,
        'members',
        {
          account: space.account,
          space: space.id,
          firstName: body.firstName.trim(),
          lastName: body.lastName.trim(),
          emailAddress,
          emailKey,
          state: 'pending',
        },
        { at, by: null },
      );
      const signUp = await insertSignUp(trx, {
        account: space.account,
        space: space.id,
        member: member.id,
        package: pkg.id,
        status: 'pending',
        ipAddress,
        createdAt: at,
      });
      await recordAcceptance(trx, {
        account: space.account,
        space: space.id,
        member: member.id,
        version: rules.version,
        acceptedAt: at,
        via: 'signUp',
      });
      const url = await newConfirmLink(ctx, trx, signUp);
      await emitMember(trx, 'member_created', member);
      await emitEvent(trx, {
        account: space.account,
        type: 'signUp_created',
        details: async () => ({
          signUp: await signUpRecord(
            trx,
            { ...signUp, firstName: member.firstName, lastName: member.lastName, emailAddress },
            at.slice(0, 10),
          ),
          member: memberRecord(member),
        }),
      });
      return { member, url };
    });
  } catch (err) {
    // Two sign-ups of one address at once: the second meets the unique e-mail index.
    if (isUniqueViolation(err)) throw used();
    throw err;
  }
  const confirmationMailed = await mailConfirmLink(ctx, created.member, space.name, created.url);
  return { status: 'pending', confirmationMailed };
}

/**
 * Confirms a sign-up's address from the mailed link. Unknown links answer 400, expired ones
 * 410 (ask for a new link); a link clicked again answers as the first time.
 */
export async function confirmSignUpEmail(ctx: SignUpContext, token: string) {
  const hash = hashToken(token);
  const row = await signUpByTokenHash(ctx.db, hash);
  if (!row?.confirmTokenHash || !safeEqual(row.confirmTokenHash, hash)) {
    throw new HttpError(400, 'This confirmation link is not valid (a newer one may have been sent)', {
      field: 'token',
      linkInvalid: true,
    });
  }
  const member = await memberById(ctx.db, row.member);
  const answer = { emailAddress: member?.emailAddress ?? '', status: row.status as 'pending' };
  if (row.emailConfirmedAt !== null) return answer;
  if (row.confirmExpiresAt && Date.parse(row.confirmExpiresAt) <= ctx.clock.now().getTime()) {
    throw new HttpError(410, 'This confirmation link has expired: ask for a new one on the join page', {
      linkExpired: true,
    });
  }
  await confirmOnce(ctx.db, row.id, ctx.clock.now().toISOString(), 'link');
  return answer;
}

/** Mails a new confirmation link to each unconfirmed pending sign-up of the address (nothing when none). */
export async function resendConfirmLinks(ctx: SignUpContext, emailAddress: string): Promise<void> {
  for (const signUp of await unconfirmedByEmail(ctx.db, emailAddress.trim().toLowerCase())) {
    const member = await memberById(ctx.db, signUp.member);
    const space = await spaceById(ctx.db, signUp.space);
    if (!member || !space) continue;
    const url = await newConfirmLink(ctx, ctx.db, signUp);
    await mailConfirmLink(ctx, member, space.name, url);
  }
}

// ---- the admins' queue ----

type SignUpWithNames = SignUpRow & { firstName: string; lastName: string; emailAddress: string | null };

async function checklistOf(db: Db, row: SignUpRow, today: string): Promise<SignUpChecklist> {
  const settings = await settingsOf(db, row.space);
  const rules = await currentHouseRules(db, row.space);
  const accepted = await acceptedVersion(db, row.member);
  return {
    emailConfirmed: row.emailConfirmedAt !== null,
    houseRulesAccepted: accepted !== null && (!rules || accepted >= rules.version),
    training: settings?.requireTraining
      ? await hasTraining(db, row.member, settings.requireTraining, today)
      : null,
    keyCard: settings && bool(settings.requireKeyCard) ? await hasKeyCard(db, row.member) : null,
    firstPayment:
      settings && bool(settings.requireFirstPayment) ? await hasCompletedPayment(db, row.member) : null,
  };
}

const checklistWords: Record<keyof SignUpChecklist, string> = {
  emailConfirmed: 'e-mail not confirmed',
  houseRulesAccepted: 'current house rules not accepted',
  training: 'training missing',
  keyCard: 'no key card assigned',
  firstPayment: 'no payment recorded',
};

/** A sign-up as the API answers it; `today` (YYYY-MM-DD) decides whether a training is still valid. */
export async function signUpRecord(db: Db, row: SignUpWithNames, today: string): Promise<SignUpRecord> {
  const checklist = await checklistOf(db, row, today);
  const [pkg] = row.package ? await packagesByIds(db, row.account, [row.package]) : [];
  const missing =
    row.status === 'pending'
      ? (Object.keys(checklist) as (keyof SignUpChecklist)[])
          .filter((k) => checklist[k] === false)
          .map((k) => checklistWords[k])
      : [];
  return {
    id: row.id,
    account: row.account,
    space: row.space,
    member: row.member,
    firstName: row.firstName,
    lastName: row.lastName,
    emailAddress: row.emailAddress,
    package: pkg ? { id: pkg.id, name: pkg.name } : null,
    status: row.status as SignUpRecord['status'],
    emailConfirmedAt: row.emailConfirmedAt,
    emailConfirmedBy: row.emailConfirmedBy as SignUpRecord['emailConfirmedBy'],
    acceptedVersion: await acceptedVersion(db, row.member),
    createdAt: row.createdAt,
    decidedAt: row.decidedAt,
    rejectReason: row.rejectReason,
    checklist,
    missing,
  };
}

/** The account's sign-ups (admins), newest first, each with its checklist. */
export async function listSignUps(
  db: Db,
  caller: Caller,
  now: Date,
  status?: string,
): Promise<SignUpRecord[]> {
  adminOnly(caller);
  const rows = await signUpsOf(db, caller.superuser ? null : caller.accountId, status);
  const today = now.toISOString().slice(0, 10);
  return Promise.all(rows.map((r) => signUpRecord(db, r, today)));
}

/**
 * The sign-ups waiting for an admin of the account (pending), oldest first: for notifications
 * ("a sign-up waiting"). Each with the member's name and address and whether the address is confirmed.
 */
export async function pendingSignUps(db: Db, account: number) {
  const rows = await signUpsOf(db, account, 'pending');
  return rows.reverse().map((r) => ({
    id: r.id,
    space: r.space,
    member: r.member,
    firstName: r.firstName,
    lastName: r.lastName,
    emailAddress: r.emailAddress,
    emailConfirmed: r.emailConfirmedAt !== null,
    createdAt: r.createdAt,
  }));
}

async function findSignUp(db: Db, caller: Caller, id: number): Promise<SignUpWithNames> {
  adminOnly(caller);
  const row = await signUpById(db, caller.superuser ? null : caller.accountId, id);
  const member = row ? await memberById(db, row.member) : undefined;
  if (!row || !member) throw notFound('Sign-up');
  return {
    ...row,
    firstName: member.firstName,
    lastName: member.lastName,
    emailAddress: member.emailAddress,
  };
}

export async function getSignUp(db: Db, caller: Caller, id: number, now: Date) {
  return signUpRecord(db, await findSignUp(db, caller, id), now.toISOString().slice(0, 10));
}

const decided = (row: SignUpRow) =>
  conflict(`This sign-up was ${row.status} already`, { status: row.status });

/** An admin confirms the address by hand (no mail server, or the person showed it in person). */
export async function confirmByHand(ctx: SignUpContext, caller: Caller, id: number) {
  const row = await findSignUp(ctx.db, caller, id);
  if (row.status !== 'pending') throw decided(row);
  await confirmOnce(ctx.db, row.id, ctx.clock.now().toISOString(), 'admin');
  return getSignUp(ctx.db, caller, id, ctx.clock.now());
}

/**
 * Approves a pending sign-up whose checklist is complete (422 names what is missing): the
 * member becomes active and gets the package chosen, billed as when an admin gives it.
 */
export async function approveSignUp(ctx: SignUpContext, caller: Caller, id: number) {
  const row = await findSignUp(ctx.db, caller, id);
  if (row.status !== 'pending') throw decided(row);
  const record = await signUpRecord(ctx.db, row, ctx.clock.now().toISOString().slice(0, 10));
  if (record.missing.length > 0) {
    throw unprocessable(`The checklist is not complete: ${record.missing.join(', ')}`, {
      missing: record.missing,
    });
  }
  const at = ctx.clock.now();
  await ctx.events.transaction(async (trx) => {
    if (
      !(await decideOnce(trx, row.id, {
        status: 'approved',
        decidedAt: at.toISOString(),
        decidedBy: caller.memberId,
      }))
    ) {
      throw conflict('This sign-up was decided already');
    }
    const member = await memberById(trx, row.member);
    if (!member) throw notFound('Member');
    const active = await writeMemberFields(
      trx,
      member,
      { state: 'active' },
      { at: at.toISOString(), by: caller.memberId },
    );
    if (row.package !== null) {
      await createMemberPackage(trx, { member: active, caller, body: { package: row.package }, at });
    }
  });
  return getSignUp(ctx.db, caller, id, ctx.clock.now());
}

/** Rejects a pending sign-up: the member stays, locked, so the address is not taken again unseen. */
export async function rejectSignUp(ctx: SignUpContext, caller: Caller, id: number, reason: string | null) {
  const row = await findSignUp(ctx.db, caller, id);
  if (row.status !== 'pending') throw decided(row);
  const at = ctx.clock.now().toISOString();
  await ctx.events.transaction(async (trx) => {
    if (
      !(await decideOnce(trx, row.id, {
        status: 'rejected',
        decidedAt: at,
        decidedBy: caller.memberId,
        rejectReason: reason,
      }))
    ) {
      throw conflict('This sign-up was decided already');
    }
    const member = await memberById(trx, row.member);
    if (member) await writeMemberFields(trx, member, { state: 'locked' }, { at, by: caller.memberId });
  });
  return getSignUp(ctx.db, caller, id, ctx.clock.now());
}
