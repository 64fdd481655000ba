import { z } from 'zod';
import { Id, Timestamp } from './common.js';
import { UserMe } from './identity.js';

/** Sign-in for people (docs/SIGN-IN.md): passwords, emailed one-use links, browser sessions. */

export const SignInMethod = z.enum(['password', 'link']);
export const SignInLinkPurpose = z.enum(['signIn', 'invitation', 'passwordReset']);
export type SignInLinkPurpose = z.infer<typeof SignInLinkPurpose>;

/**
 * Where the web app goes after a link is redeemed: a path on the hub itself, so a mailed link
 * can never send a member to another site (one leading `/`, not `//`, no scheme, no backslash).
 */
export const NextPath = z
  .string()
  .max(512)
  .refine(
    (s) => /^\/(?!\/)/.test(s) && !s.includes('\\') && !/[\u0000-\u001f\u007f]/.test(s),
    'expected a relative path starting with one "/"',
  );

export const LoginBody = z.strictObject({
  emailAddress: z.string().min(1).max(254),
  password: z.string().min(1).max(1000),
  account: Id.optional().describe(
    "Sign in to this account's member (an address may have members in several; POST /user/accounts lists them)",
  ),
});

export const BrowserSession = z.object({
  id: Id,
  method: SignInMethod,
  createdAt: Timestamp,
  lastSeenAt: Timestamp,
  expiresAt: Timestamp,
  userAgent: z.string().nullable(),
  ipAddress: z.string().nullable(),
  current: z.boolean().describe('The session this request was made with'),
});
export type BrowserSession = z.infer<typeof BrowserSession>;

/**
 * What a sign-in answers: the user record of `GET /user/me` with its `state` at the top (clients of
 * the commercial interface, such as the OctoPrint login plugin, read `state` and
 * `members[].account`/`id` there), plus the web app's fields, which do not clash with it.
 */
export const SignInResult = UserMe.extend({
  state: z.literal('active').describe('A member who can sign in is active'),
  member: UserMe.describe('The same user record (the web app reads it here)'),
  csrfToken: z
    .string()
    .describe('Send as X-CSRF-Token with every cookie-authenticated request that is not GET/HEAD/OPTIONS'),
  session: BrowserSession,
});
export type SignInResult = z.infer<typeof SignInResult>;

export const SignInLinkRequest = z.strictObject({
  emailAddress: z.string().min(1).max(254),
  purpose: z.enum(['signIn', 'passwordReset']).default('signIn'),
  next: NextPath.optional(),
});

export const SignInLinkRedeem = z.strictObject({
  token: z.string().min(1).max(200),
});

export const SignInLinkRedeemed = SignInResult.extend({
  purpose: SignInLinkPurpose,
  next: z.string().nullable(),
});
export type SignInLinkRedeemed = z.infer<typeof SignInLinkRedeemed>;

export const PasswordChange = z.strictObject({
  password: z.string().describe('10 to 200 characters; not a common password; not the e-mail address'),
  currentPassword: z
    .string()
    .max(1000)
    .optional()
    .describe(
      'Required when the member has a password, unless the session came from a link in the last 15 minutes',
    ),
});

export const InvitationStatus = z.enum(['notInvited', 'invited', 'accepted']);

export const InvitationRecord = z.object({
  member: Id,
  invitedBy: Id.nullable(),
  status: InvitationStatus,
  invitedAt: Timestamp.nullable(),
});
export type InvitationRecord = z.infer<typeof InvitationRecord>;

/** A link made for a member by an admin: mailed, or handed over when the hub has no SMTP. */
export const LinkIssued = z.object({
  emailSent: z.boolean(),
  link: z.string().optional().describe('Only when no e-mail was sent (no SMTP configured)'),
  expiresAt: Timestamp.describe('When the link stops working'),
});

export const InvitationSent = z.object({
  member: Id,
  invitedBy: Id.nullable(),
  status: z.literal('invited'),
  ...LinkIssued.shape,
});
