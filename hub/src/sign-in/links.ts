import type { SignInLinkPurpose } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { SignInContext } from './context.js';
import type { Db } from '../db/crud.js';
import type { SignInLinksTable } from '../db/schema.js';
import { HttpError, serviceUnavailable } from '../errors.js';
import type { MemberRow } from '../identity/members.js';
import { hashToken, newSecretToken, safeEqual } from '../secrets.js';
import { deleteLink, insertLink, linkByTokenHash, markAccepted, useLink } from './sign-in.repository.js';
import { spaceName } from '../spaces/spaces.repository.js';

export type SignInLinkRow = Selectable<SignInLinksTable>;

/** Sign-in and password-reset links: short, as a member asks for one when about to use it. */
export const linkLifetimeMs = 15 * 60_000;
/** Invitations wait for the member to find the mail (or the admin to hand the link over). */
export const defaultInvitationDays = 7;

/** How long a link of this purpose stays valid. */
export function lifetimeOf(
  ctx: Pick<SignInContext, 'invitationLifetimeMs'>,
  purpose: SignInLinkPurpose,
): number {
  return purpose === 'invitation' ? ctx.invitationLifetimeMs : linkLifetimeMs;
}

/** "15 minutes", "7 days", "1 day": a lifetime in words for mails and API texts. */
export function lifetimeWords(ms: number): string {
  const days = ms / 86_400_000;
  if (Number.isInteger(days)) return days === 1 ? '1 day' : `${days} days`;
  const minutes = Math.round(ms / 60_000);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** Builds the link the web app's page /sign-in/link reads: the token travels in the fragment. */
export function linkUrl(base: string, token: string, next: string | null): string {
  const tail = next ? `&next=${encodeURIComponent(next)}` : '';
  return `${base}/sign-in/link#token=${token}${tail}`;
}

/** Stores a new one-use link for the member; the token is returned once and stored hashed. */
export async function createLink(
  ctx: Pick<SignInContext, 'db' | 'clock' | 'linkBase' | 'invitationLifetimeMs'>,
  member: Pick<MemberRow, 'id' | 'account'>,
  purpose: SignInLinkPurpose,
  next: string | null,
  createdBy: number | null,
): Promise<{ row: SignInLinkRow; token: string; url: string }> {
  const token = newSecretToken();
  const now = ctx.clock.now().getTime();
  const row = await insertLink(ctx.db, {
    account: member.account,
    member: member.id,
    purpose,
    tokenHash: hashToken(token),
    next,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + lifetimeOf(ctx, purpose)).toISOString(),
    createdBy,
  });
  return { row, token, url: linkUrl(ctx.linkBase, token, next) };
}

const subjects: Record<SignInLinkPurpose, (space: string) => string> = {
  signIn: (space) => `Your sign-in link for ${space}`,
  invitation: (space) => `You are invited to ${space}`,
  passwordReset: (space) => `Reset your password for ${space}`,
};

const intros: Record<SignInLinkPurpose, (space: string) => string> = {
  signIn: (space) => `here is the link that signs you in to ${space}:`,
  invitation: (space) => `${space} invites you to its members' app. Open this link to set up your sign-in:`,
  passwordReset: (space) => `open this link to choose a new password for ${space}:`,
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The mail that carries a link: plain, names the space, the link and how long it works. */
export function linkMail(
  purpose: SignInLinkPurpose,
  member: MemberRow,
  space: string,
  url: string,
  lifetimeMs = linkLifetimeMs,
) {
  const greeting = `Hello ${member.firstName},`;
  const validity = `The link works once, within ${lifetimeWords(lifetimeMs)}. If you did not ask for it, you can ignore this e-mail.`;
  return {
    to: member.emailAddress as string,
    subject: subjects[purpose](space),
    text: [greeting, '', intros[purpose](space), '', url, '', validity, '', `— ${space}`, ''].join('\n'),
    html: [
      `<p>${escapeHtml(greeting)}</p>`,
      `<p>${escapeHtml(intros[purpose](space))}</p>`,
      `<p><a href="${escapeHtml(url)}">${escapeHtml(subjects[purpose](space))}</a></p>`,
      `<p>${escapeHtml(validity)}</p>`,
      `<p>— ${escapeHtml(space)}</p>`,
    ].join('\n'),
  };
}

export async function spaceNameOf(db: Db, member: Pick<MemberRow, 'space'>): Promise<string> {
  return (await spaceName(db, member.space)) ?? 'your makerspace';
}

/**
 * Mails a link to the member. Without a mailer nothing is sent (false). A failed send forgets
 * the link and answers 503; the failure is logged without the link.
 */
export async function mailLink(
  ctx: SignInContext,
  member: MemberRow,
  link: { row: SignInLinkRow; url: string },
): Promise<boolean> {
  if (!ctx.mailer) return false;
  const space = await spaceNameOf(ctx.db, member);
  try {
    const purpose = link.row.purpose as SignInLinkPurpose;
    await ctx.mailer.send(linkMail(purpose, member, space, link.url, lifetimeOf(ctx, purpose)));
    return true;
  } catch (err) {
    await deleteLink(ctx.db, link.row.id);
    ctx.logger.error(
      { member: member.id, purpose: link.row.purpose, error: (err as Error).message },
      'could not send a sign-in e-mail',
    );
    throw serviceUnavailable('Could not send the e-mail');
  }
}

export const linkInvalid = () => new HttpError(400, 'This sign-in link is not valid');
export const linkExpired = () => new HttpError(410, 'This sign-in link has expired');
export const linkUsed = () => new HttpError(410, 'This sign-in link was already used');

/**
 * Finds the link of a token: unknown (400), used (410) and expired (410) links are refused and
 * nothing changes. Marking it used is the caller's (in its transaction, `useLink`).
 */
export async function findUsableLink(ctx: SignInContext, token: string): Promise<SignInLinkRow> {
  const hash = hashToken(token);
  const row = await linkByTokenHash(ctx.db, hash);
  if (!row || !safeEqual(row.tokenHash, hash)) throw linkInvalid();
  if (row.usedAt !== null) throw linkUsed();
  if (Date.parse(row.expiresAt) <= ctx.clock.now().getTime()) throw linkExpired();
  return row;
}

export { supersedeInvitations } from './sign-in.repository.js';

/**
 * Redeems a usable link: uses it and starts the member's session in one transaction (a second
 * redeem of the same link is 410); a redeemed invitation marks the invitation accepted.
 */
export async function redeemLink(
  ctx: SignInContext,
  link: SignInLinkRow,
  member: MemberRow,
  client: { userAgent: string | null; ipAddress: string | null },
) {
  const at = ctx.clock.now().toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await useLink(trx, link.id, at))) throw linkUsed();
    if (link.purpose === 'invitation') await markAccepted(trx, member.id, at);
    return ctx.sessions.create(member, 'link', client, trx);
  });
}
