import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ResourceStatusField } from '@makerspace/shared';
import { z } from 'zod';
import { badRequest } from '../errors.js';
import type { HubServices } from '../http/services.js';
import { callerOf, tokenFromHeader } from '../http/auth.js';
import type { LiveChannel } from '../http/live.js';
import { sessionCookie } from '../sign-in/cookie.js';

const liveKeys = new Set(['resource', 'format', 'field']);

/**
 * Lists ignore query keys they do not declare (clients of the commercial interface send their
 * own), but a stream would quietly follow every resource for a misspelt `resource[]=1`: the live
 * channel answers 400 naming the key, and opens no stream.
 */
function refuseUnknownKeys(url: string): void {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  for (const key of new URLSearchParams(query).keys()) {
    if (!liveKeys.has(key)) {
      throw badRequest(`query.${key}: not a parameter of the live channel (resource, format, field)`, {
        validation: [{ path: key, message: 'not a parameter of the live channel' }],
      });
    }
  }
}

/** DESIGN 11: the live channel of the web app (and of any client that reads Server-Sent Events). */
export function liveRoutes(ctx: HubServices, live: LiveChannel): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/live',
      {
        schema: {
          tags: ['live'],
          summary: 'Live state of doors and machines (Server-Sent Events)',
          description:
            'A `text/event-stream`. First event `snapshot` `{type, resources: [ResourceStatus]}` with every resource the caller sees, then `resource` `{type, status}` on each change (or, with `format=changes`, `changes` `{type, changes}` per batch with only what changed) (bridge online or offline, relay on or off, a session starting or ending; changes come together: within 250 ms for streams that follow chosen resources; for those that follow every resource, within 500 ms for admins (dashboards) and within 1 s for members (home pages)), `resourceRemoved` `{type, resource}`, and `signedOut` `{type, reason}` before the stream ends because the sign-in ended. A comment line every 25 s keeps proxies from closing it. Browsers use `new EventSource("/api/v1/live")` with the session cookie; other clients send their token as usual. A query key other than `resource`, `format` and `field` answers 400 and opens no stream.',
          querystring: z.object({
            resource: z
              .array(z.coerce.number().int().positive())
              .max(100)
              .default([])
              .describe('Follow only these resources (repeatable); default: every resource the caller sees'),
            format: z
              .enum(['full', 'changes'])
              .default('full')
              .describe(
                '`full` (default): a `resource` event with the whole status per changed resource. `changes`: one `changes` event per batch, `{type, changes: [{resource, ...the fields that changed}]}`, each entry the fields that differ from the last state this stream was sent of that resource (a whole status when it had none); apply an entry by merging it into the status held',
              ),
            field: z
              .array(ResourceStatusField)
              .max(20)
              .default([])
              .describe(
                "Send only these fields of each status (repeatable; `resource` is always sent); default: every field. A stream asked for `relay` and `session`, say, is sent nothing when only its bridge's `lastSeenAt` moves, as it does at every message from the bridge",
              ),
          }),
          produces: ['text/event-stream'],
        },
      },
      async (request, reply) => {
        refuseUnknownKeys(request.raw.url ?? '');
        const caller = callerOf(request);
        const token = tokenFromHeader(request.headers.authorization);
        const sessionToken = caller.via === 'session' ? sessionCookie(request) : null;
        // Asked at every keep-alive: a key deleted, a session expired or a member locked meanwhile ends the stream.
        const stillValid = async () => {
          if (sessionToken)
            return (await ctx.sessions.authenticate(sessionToken))?.caller.memberId === caller.memberId;
          if (!token) return false;
          const again = await ctx.auth.authenticate(token);
          return again !== null && again.memberId === caller.memberId;
        };
        reply.hijack();
        const { resource: only, format, field: fields } = request.query;
        await live.open(caller, reply.raw, stillValid, { only, format, fields });
      },
    );
  };
}
