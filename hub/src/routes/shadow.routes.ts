import { ShadowReport } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { adminRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import { shadowReport } from '../shadow/shadow.js';

/** Shadow mode's report for the console (docs/MOVING.md); `makerspace-hub shadow` fills it. */
export function shadowRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    adminRoute(
      app,
      'get',
      '/shadow-report',
      {
        tags: ['access'],
        summary: 'Shadow mode: our decisions beside another server’s (admins)',
        description:
          'What `makerspace-hub shadow` compared so far: for each resource of the other server, how many of its allowed and denied decisions our access policy decides the same way, and the latest disagreements (`limit`, default 500) with both reasons. Empty until the command has run.',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(5000).default(500) }),
        response: { 200: ShadowReport },
      },
      async (request, caller) => shadowReport(ctx.db, caller.accountId, request.query.limit) as never,
    );
  };
}
