import {
  LoginBody,
  PasswordChange,
  SignInLinkRedeem,
  SignInLinkRedeemed,
  SignInLinkRequest,
  SignInResult,
  BrowserSession,
  type SignInLinkPurpose,
} from '@makerspace/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { callerOf, csrfRefused, fromOwnOrigin } from '../http/auth.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { type MemberRow, userMeRecord } from '../identity/members.js';
import { clearSessionCookie, setSessionCookie } from '../sign-in/cookie.js';
import {
  createLink,
  findUsableLink,
  linkInvalid,
  linkLifetimeMs,
  linkUsed,
  mailLink,
  useLink,
} from '../sign-in/links.js';
import {
  checkNewPassword,
  hashPassword,
  passwordHashOf,
  storePassword,
  verifyPassword,
} from '../sign-in/passwords.js';
import { type SessionRow, type SignInMethod, sessionRecord } from '../sign-in/sessions.js';
import { canSignIn, loginCandidates, markAccepted, memberById } from '../sign-in/sign-in.repository.js';
import type { Throttle } from '../sign-in/throttle.js';

const tags = ['sign-in'];
const open = { public: true };
const noAuth: Record<string, string[]>[] = [];
const SessionParams = z.object({ sessionId: z.coerce.number().int().positive() });

const wrongCredentials = () => new HttpError(401, 'Wrong email address or password');

const tooManyAttempts = (seconds: number) =>
  new HttpError(
    429,
    `Too many attempts; try again in ${seconds} seconds`,
    { retryAfter: seconds },
    { 'retry-after': String(seconds) },
  );

/** 429 with the real wait when any of the throttles is at its limit for its key. */
async function throttled(checks: [Throttle, string][]): Promise<void> {
  let wait = 0;
  for (const [throttle, key] of checks) wait = Math.max(wait, await throttle.retryAfter(key));
  if (wait > 0) throw tooManyAttempts(wait);
}

/**
 * The routes that set the session cookie are public, so the auth hook's CSRF rule does not
 * cover them: a page of another site must not sign a browser in (to an account of its choice).
 */
function refuseCrossSite(ctx: HubServices, request: FastifyRequest): void {
  if (request.headers.origin !== undefined && !fromOwnOrigin(request, ctx.publicUrl)) throw csrfRefused();
}

/** docs/SIGN-IN.md: passwords, emailed links, browser sessions (the /user routes). */
export function signInRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const t = ctx.throttles;
    // Link mails to public requests go out after the answer (it must not tell by its timing
    // whether the address is known); the hub waits for them when it closes.
    const pending = new Set<Promise<void>>();
    app.addHook('onClose', async () => {
      await Promise.allSettled([...pending]);
    });

    async function startSession(
      request: FastifyRequest,
      reply: FastifyReply,
      member: MemberRow,
      session: { token: string; row: SessionRow },
    ) {
      setSessionCookie(request, reply, session.token);
      reply.header('cache-control', 'no-store');
      return {
        member: userMeRecord(member),
        csrfToken: ctx.sessions.csrfToken(session.row),
        session: sessionRecord(session.row, session.row.id),
      };
    }

    const client = (request: FastifyRequest) => ({
      userAgent: request.headers['user-agent'] ?? null,
      ipAddress: request.ip ?? null,
    });

    const createSession = (member: MemberRow, method: SignInMethod, request: FastifyRequest) =>
      ctx.sessions.create(member, method, client(request));

    app.post(
      '/user/login',
      {
        config: open,
        schema: {
          tags,
          summary: 'Sign in with e-mail address and password (sets the session cookie)',
          description:
            'An e-mail address may belong to members of several accounts: the first active member (by id) whose password matches is signed in, or with `account` the member of that account.',
          security: noAuth,
          body: LoginBody,
          response: { 200: SignInResult },
        },
      },
      async (request, reply) => {
        refuseCrossSite(ctx, request);
        const email = request.body.emailAddress.trim().toLowerCase();
        await throttled([
          [t.loginPerEmail, email],
          [t.loginPerAddress, request.ip],
        ]);
        const { account } = request.body;
        const candidates = (await loginCandidates(ctx.db, email)).filter(
          (m) => m.passwordHash !== null && (account === undefined || m.account === account),
        );
        let member: MemberRow | null = null;
        // Unknown address or no password: verify against a dummy hash all the same (timing).
        if (candidates.length === 0) await verifyPassword(null, request.body.password);
        for (const candidate of candidates) {
          if (await verifyPassword(candidate.passwordHash, request.body.password)) {
            member = candidate;
            break;
          }
        }
        if (!member) {
          await t.loginPerEmail.hit(email);
          await t.loginPerAddress.hit(request.ip);
          throw wrongCredentials();
        }
        // A success forgets the address's failures, not those of the source address.
        await t.loginPerEmail.reset(email);
        return startSession(request, reply, member, await createSession(member, 'password', request));
      },
    );

    app.post(
      '/user/logout',
      { schema: { tags, summary: 'Sign out: ends the current browser session and clears the cookie' } },
      async (request, reply) => {
        const caller = callerOf(request);
        if (caller.sessionId !== null) {
          await ctx.sessions.revokeOfMember(caller.memberId, { only: [caller.sessionId] });
        }
        clearSessionCookie(request, reply);
        return reply.code(204).send();
      },
    );

    app.post(
      '/user/sign-in-links',
      {
        config: open,
        schema: {
          tags,
          summary: 'Mail a sign-in (or password reset) link to an e-mail address',
          description:
            'Answers 202 whether or not the address is known. When it belongs to an active member allowed to sign in (the first by id), a link valid for 15 minutes is mailed.',
          security: noAuth,
          body: SignInLinkRequest,
          response: { 202: z.object({}) },
        },
      },
      async (request, reply) => {
        const email = request.body.emailAddress.trim().toLowerCase();
        await throttled([
          [t.linksPerEmail, email],
          [t.linksPerAddress, request.ip],
        ]);
        await t.linksPerEmail.hit(email);
        await t.linksPerAddress.hit(request.ip);
        const { purpose, next } = request.body;
        if (ctx.mailer) {
          const work = (async () => {
            const [member] = await loginCandidates(ctx.db, email);
            if (!member) return;
            const link = await createLink(ctx, member, purpose, next ?? null, null);
            await mailLink(ctx, member, link);
          })()
            .catch(() => {
              // mailLink logged the failure (without the link); the answer was 202 already.
            })
            .finally(() => pending.delete(work));
          pending.add(work);
        }
        return reply.code(202).send({});
      },
    );

    app.post(
      '/user/sign-in-links/redeem',
      {
        config: open,
        schema: {
          tags,
          summary: 'Redeem a mailed link: signs in (sets the session cookie)',
          description:
            'Expired or used links answer 410, unknown ones 400; none of them changes anything. A redeemed invitation marks the invitation accepted.',
          security: noAuth,
          body: SignInLinkRedeem,
          response: { 200: SignInLinkRedeemed },
        },
      },
      async (request, reply) => {
        refuseCrossSite(ctx, request);
        const link = await findUsableLink(ctx, request.body.token);
        const member = await memberById(ctx.db, link.member);
        if (!canSignIn(member)) throw linkInvalid();
        const at = ctx.clock.now().toISOString();
        const session = await ctx.db.transaction().execute(async (trx) => {
          if (!(await useLink(trx, link.id, at))) throw linkUsed();
          if (link.purpose === 'invitation') await markAccepted(trx, member.id, at);
          return ctx.sessions.create(member, 'link', client(request), trx);
        });
        return {
          ...(await startSession(request, reply, member, session)),
          purpose: link.purpose as SignInLinkPurpose,
          next: link.next,
        };
      },
    );

    app.put(
      '/user/password',
      {
        schema: {
          tags,
          summary: "Set or change the caller's password",
          description:
            'At least 10 and at most 200 characters, not one of the 10,000 most common passwords, not the e-mail address. When the member has a password, currentPassword is required unless the session was created by a link within the last 15 minutes. Other sessions of the member end.',
          body: PasswordChange,
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const member = await memberById(ctx.db, caller.memberId);
        if (!member) throw notFound('Member');
        const { password, currentPassword } = request.body;
        checkNewPassword(password, member.emailAddress);
        const existing = await passwordHashOf(ctx.db, member.id);
        const session = request.browserSession;
        const fromFreshLink =
          session?.method === 'link' &&
          ctx.clock.now().getTime() - Date.parse(session.createdAt) < linkLifetimeMs;
        if (existing && !fromFreshLink) {
          if (currentPassword === undefined) {
            throw badRequest('Give your current password to change it', {
              field: 'currentPassword',
              reason: 'required',
            });
          }
          // Guessing the current password through a session counts like failed logins.
          const key = member.emailKey ?? `member:${member.id}`;
          await throttled([[t.loginPerEmail, key]]);
          if (!(await verifyPassword(existing, currentPassword))) {
            await t.loginPerEmail.hit(key);
            throw badRequest('The current password is wrong', { field: 'currentPassword', reason: 'wrong' });
          }
        }
        await storePassword(ctx.db, member.id, await hashPassword(password), ctx.clock.now().toISOString());
        await ctx.sessions.revokeOfMember(member.id, { except: caller.sessionId ?? undefined });
        return reply.code(204).send();
      },
    );

    app.get(
      '/user/sessions',
      {
        schema: {
          tags,
          summary: "The caller's active browser sessions",
          response: { 200: z.array(BrowserSession) },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const rows = await ctx.sessions.list(caller.memberId);
        return rows.map((row) => sessionRecord(row, caller.sessionId));
      },
    );

    app.get(
      '/user/sessions/current',
      {
        schema: {
          tags,
          summary: 'The browser session of this call and its CSRF token',
          description:
            'For a page that was reloaded: the CSRF token to send as `X-CSRF-Token` with every change made with the session cookie. Calls with an API token have no session (404).',
          response: { 200: z.object({ session: BrowserSession, csrfToken: z.string() }) },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const session = request.browserSession;
        if (caller.sessionId === null || !session) throw notFound('Session');
        reply.header('cache-control', 'no-store');
        return {
          session: sessionRecord(session, caller.sessionId),
          csrfToken: ctx.sessions.csrfToken(session),
        };
      },
    );

    app.delete(
      '/user/sessions/:sessionId',
      { schema: { tags, summary: "End one of the caller's sessions", params: SessionParams } },
      async (request, reply) => {
        const caller = callerOf(request);
        const id = request.params.sessionId;
        const live = await ctx.sessions.list(caller.memberId);
        if (!live.some((s) => s.id === id)) throw notFound('Session');
        await ctx.sessions.revokeOfMember(caller.memberId, { only: [id] });
        if (id === caller.sessionId) clearSessionCookie(request, reply);
        return reply.code(204).send();
      },
    );

    app.delete(
      '/user/sessions',
      { schema: { tags, summary: 'Sign out everywhere: ends every session of the caller' } },
      async (request, reply) => {
        const caller = callerOf(request);
        await ctx.sessions.revokeOfMember(caller.memberId);
        if (caller.sessionId !== null) clearSessionCookie(request, reply);
        return reply.code(204).send();
      },
    );
  };
}
