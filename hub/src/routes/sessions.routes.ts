import { BrowserSession } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callerOf } from '../http/auth.js';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { notFound } from '../errors.js';
import { sessionRecord } from '../sign-in/sessions.js';
import { endSessions, tags } from './sign-in.support.js';
import { pathId } from '../http/params.js';

const SessionParams = z.object({ sessionId: pathId });

/** docs/SIGN-IN.md: the caller's browser sessions (list, the current one, ending them). */
export function sessionsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    memberRoute(
      app,
      'get',
      '/user/sessions',
      {
        tags,
        summary: "The caller's active browser sessions",
        description: 'Where the member is signed in.',
        response: { 200: z.array(BrowserSession) },
      },
      async (_request, caller) => {
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
      {
        schema: {
          tags,
          summary: "End one of the caller's sessions",
          description: 'Answers 204.',
          params: SessionParams,
        },
      },
      (request, reply) => endSessions(ctx, request, reply, request.params.sessionId),
    );

    app.delete(
      '/user/sessions',
      {
        schema: {
          tags,
          summary: 'Sign out everywhere: ends every session of the caller',
          description: 'Ends every session of the caller. Answers 204.',
        },
      },
      (request, reply) => endSessions(ctx, request, reply, 'all'),
    );
  };
}
