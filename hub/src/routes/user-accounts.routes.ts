import { OtherAccounts, UserAccount, UserAccountsLookup } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { callerOf } from '../http/auth.js';
import { badRequest } from '../errors.js';
import { verifyPassword } from '../sign-in/passwords.js';
import { loginCandidates, memberById } from '../sign-in/sign-in.repository.js';
import { accountNames } from '../identity/accounts.repository.js';
import type { Throttle } from '../sign-in/throttle.js';
import { countAttempt, throttled } from './sign-in.support.js';

/**
 * docs/SIGN-IN.md, "Several accounts": which accounts a signed-in person may switch to. The
 * switch itself is `POST /user/login {emailAddress, password, account}`, a sign-in to that
 * account's member like any other.
 */
export function userAccountsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  const t = ctx.throttles;
  return async (app) => {
    memberRoute(
      app,
      'get',
      '/user/other-accounts',
      {
        tags: ['sign-in'],
        summary: "How many other accounts the caller's e-mail address could switch to",
        description:
          'Counts, without naming them, the member records with the caller’s e-mail address in other accounts that may sign in with a password: the web app offers "Switch account" only when there is one. POST /user/accounts (with the password) lists them.',
        response: { 200: OtherAccounts },
      },
      async (_request, caller) => {
        const me = await memberById(ctx.db, caller.memberId);
        const candidates = me?.emailKey ? await loginCandidates(ctx.db, me.emailKey) : [];
        return {
          count: candidates.filter((m) => m.account !== caller.accountId && m.passwordHash).length,
        };
      },
    );

    app.post(
      '/user/accounts',
      {
        schema: {
          tags: ['sign-in'],
          summary: "The accounts of the caller's e-mail address that this password opens",
          description:
            "Lists the member records with the caller's e-mail address, in any account, that may sign in and whose password is the one given (the caller's own account always, marked `current`). A password that opens none of them answers 400 `{field: password, reason: wrong}` and counts toward the failed-login throttle of the address.",
          errors: {
            400: 'Wrong password (counts toward the failed-login throttle).',
            429: 'Too many wrong passwords for this address or source; wait `Retry-After` seconds.',
          },
          example: { password: 'correct horse battery staple' },
          body: UserAccountsLookup,
          response: { 200: z.array(UserAccount) },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const me = await memberById(ctx.db, caller.memberId);
        const email = me?.emailKey ?? null;
        const checks: [Throttle, string][] = [[t.loginPerAddress, request.ip]];
        if (email) checks.push([t.loginPerEmail, email]);
        await throttled(checks);
        const candidates = email ? await loginCandidates(ctx.db, email) : [];
        const opened = [];
        for (const candidate of candidates) {
          if (
            candidate.passwordHash &&
            (await verifyPassword(candidate.passwordHash, request.body.password))
          ) {
            opened.push(candidate);
          }
        }
        if (opened.length === 0) {
          if (candidates.length === 0) await verifyPassword(null, request.body.password);
          await countAttempt(checks);
          // 400 like a wrong current password (PUT /user/password): the request itself is
          // authenticated, and a 401 would tell clients the sign-in has ended.
          throw badRequest('Wrong password', { field: 'password', reason: 'wrong' });
        }
        const ids = [...new Set([caller.accountId, ...opened.map((m) => m.account)])];
        const names = await accountNames(ctx.db, ids);
        const nameOf = new Map(names.map((a) => [a.id, a.name]));
        const records: UserAccount[] = [];
        const own = opened.find((m) => m.id === caller.memberId) ?? me;
        if (own) {
          records.push({
            account: caller.accountId,
            accountName: nameOf.get(caller.accountId) ?? '',
            member: own.id,
            privileges: caller.privileges,
            current: true,
          });
        }
        for (const m of opened) {
          if (m.account === caller.accountId) continue;
          records.push({
            account: m.account,
            accountName: nameOf.get(m.account) ?? '',
            member: m.id,
            privileges: m.privileges as UserAccount['privileges'],
            current: false,
          });
        }
        reply.header('cache-control', 'no-store');
        return records;
      },
    );
  };
}
