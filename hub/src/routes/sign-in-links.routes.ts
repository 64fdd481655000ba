import {
  PasswordChange,
  SignInLinkRedeem,
  SignInLinkRedeemed,
  SignInLinkRequest,
  type SignInLinkPurpose,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { noContentRoute } from '../http/route-kinds.js';
import { badRequest, notFound } from '../errors.js';
import {
  createLink,
  findUsableLink,
  linkInvalid,
  linkLifetimeMs,
  mailLink,
  redeemLink,
} from '../sign-in/links.js';
import {
  checkNewPassword,
  hashPassword,
  passwordHashOf,
  storePassword,
  verifyPassword,
} from '../sign-in/passwords.js';
import { canSignIn, loginCandidates, memberById } from '../sign-in/sign-in.repository.js';
import {
  admitted,
  client,
  noAuth,
  open,
  refuseCrossSite,
  signInRoute,
  startSession,
  tags,
  throttled,
} from './sign-in.support.js';

/** docs/SIGN-IN.md: mailed sign-in links (and password resets), and setting a password. */
export function signInLinksRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const t = ctx.throttles;
    // Link mails to public requests go out after the answer (it must not tell by its timing
    // whether the address is known); the hub waits for them when it closes.
    const pending = new Set<Promise<void>>();
    app.addHook('onClose', async () => {
      await Promise.allSettled([...pending]);
    });

    app.post(
      '/user/sign-in-links',
      {
        config: open,
        schema: {
          tags,
          summary: 'Mail a sign-in (or password reset) link to an e-mail address',
          description:
            'Answers 202 whether or not the address is known. When it belongs to an active member allowed to sign in (the first by id), a link valid for 15 minutes is mailed.',
          errors: { 429: 'Too many links asked for this address or source; wait `Retry-After` seconds.' },
          example: { emailAddress: 'ada@example.org', purpose: 'signIn' },
          security: noAuth,
          body: SignInLinkRequest,
          response: { 202: z.object({}) },
        },
      },
      async (request, reply) => {
        const email = request.body.emailAddress.trim().toLowerCase();
        await admitted([
          [t.linksPerEmail, email],
          [t.linksPerAddress, request.ip],
        ]);
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
      signInRoute(
        {
          summary: 'Redeem a mailed link: signs in (sets the session cookie)',
          description:
            'Expired or used links answer 410, unknown ones 400; none of them changes anything. A redeemed invitation marks the invitation accepted.',
          errors: {
            400: 'The link is unknown.',
            403: 'The request came from another site’s page (its `Origin`).',
            410: 'The link has expired or was used already.',
          },
          example: { token: 'Zt4rW9xq2mBf7LkP0aVn' },
        },
        SignInLinkRedeem,
        SignInLinkRedeemed,
      ),
      async (request, reply) => {
        refuseCrossSite(ctx, request);
        const link = await findUsableLink(ctx, request.body.token);
        const member = await memberById(ctx.db, link.member);
        if (!canSignIn(member)) throw linkInvalid();
        const session = await redeemLink(ctx, link, member, client(request));
        return {
          ...(await startSession(ctx, request, reply, member, session)),
          purpose: link.purpose as SignInLinkPurpose,
          next: link.next,
        };
      },
    );

    noContentRoute(
      app,
      'put',
      '/user/password',
      {
        tags,
        summary: "Set or change the caller's password",
        description:
          'At least 10 and at most 200 characters, not one of the 10,000 most common passwords, not the e-mail address. When the member has a password, currentPassword is required unless the session was created by a link within the last 15 minutes. Other sessions of the member end.',
        errors: {
          400: 'The password is too short, too common or the e-mail address, or `currentPassword` is missing or wrong.',
          429: 'Too many wrong current passwords; wait `Retry-After` seconds.',
        },
        example: { password: 'a long new passphrase', currentPassword: 'correct horse battery staple' },
        body: PasswordChange,
      },
      async (request, caller) => {
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
      },
    );
  };
}
