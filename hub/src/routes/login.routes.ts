import { LoginBody, SignInResult } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { HubServices } from '../http/services.js';
import type { MemberRow } from '../identity/members.js';
import { verifyPassword } from '../sign-in/passwords.js';
import { loginCandidates } from '../sign-in/sign-in.repository.js';
import type { Throttle } from '../sign-in/throttle.js';
import {
  countAttempt,
  createSession,
  endSessions,
  refuseCrossSite,
  signInRoute,
  startSession,
  tags,
  throttled,
  wrongCredentials,
} from './sign-in.support.js';

/** docs/SIGN-IN.md: signing in with e-mail address and password (the session cookie), and out. */
export function loginRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const t = ctx.throttles;
    app.post(
      '/user/login',
      signInRoute(
        {
          summary: 'Sign in with e-mail address and password (sets the session cookie)',
          description:
            'An e-mail address may belong to members of several accounts: the first active member (by id) whose password matches is signed in, or with `account` the member of that account.',
          errors: {
            401: 'Wrong e-mail address or password.',
            403: 'The request came from another site’s page (its `Origin`).',
            429: 'Too many attempts for this address or source; wait `Retry-After` seconds.',
          },
          example: { emailAddress: 'ada@example.org', password: 'correct horse battery staple' },
        },
        LoginBody,
        SignInResult,
      ),
      async (request, reply) => {
        refuseCrossSite(ctx, request);
        const email = request.body.emailAddress.trim().toLowerCase();
        const checks: [Throttle, string][] = [
          [t.loginPerEmail, email],
          [t.loginPerAddress, request.ip],
        ];
        await throttled(checks);
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
          await countAttempt(checks);
          throw wrongCredentials();
        }
        // A success forgets the address's failures, not those of the source address.
        await t.loginPerEmail.reset(email);
        return startSession(
          ctx,
          request,
          reply,
          member,
          await createSession(ctx, member, 'password', request),
        );
      },
    );

    app.post(
      '/user/logout',
      {
        schema: {
          tags,
          summary: 'Sign out: ends the current browser session and clears the cookie',
          description: 'Ends the current browser session and clears the cookie.',
        },
      },
      (request, reply) => endSessions(ctx, request, reply, 'this'),
    );
  };
}
