import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { tokenFromHeader } from '../http/auth.js';
import { isFormBody } from '../http/content.js';
import { nestFormFields } from '../http/form-fields.js';
import { notFound } from '../errors.js';
import {
  bridgeByKey,
  bridgeSeen,
  type HttpBridge,
  heartbeat,
  httpAccess,
  httpStop,
  httpUpdate,
} from '../resources/http-bridge.js';

import { AccessBody, HeartbeatBody, StopBody, UpdateBody } from './bridge-api.schemas.js';

/** Fabman's HTTP bridge API (resources/http-bridge.ts) as the existing DIY bridges speak it; the bodies in bridge-api.schemas.ts. */
export function bridgeApiRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    // Bridges authenticate with their bridge API key, not a member's token, before the body is
    // looked at (401 comes before 400). Every authenticated request keeps the bridge online.
    const bridges = new WeakMap<FastifyRequest, HttpBridge>();
    const bridgeOf = (request: FastifyRequest) => bridges.get(request) as HttpBridge;
    const options = (body: z.ZodType, summary: string) => ({
      schema: { tags: ['bridge'], summary, body, security: [{ bearer: [] }] },
      config: { public: true },
      onRequest: async (request: FastifyRequest) => {
        const bridge = await bridgeByKey(ctx, tokenFromHeader(request.headers.authorization));
        bridges.set(request, bridge);
        await bridgeSeen(ctx, bridge);
      },
      preValidation: async (request: FastifyRequest) => {
        if (isFormBody(request) && request.body && typeof request.body === 'object') {
          request.body = nestFormFields(request.body as Record<string, unknown>);
        }
      },
    });

    app.post(
      '/bridge/heartbeat',
      options(HeartbeatBody, 'A bridge is alive; answers its config when the bridge holds an older one'),
      async (request) => {
        const body = request.body as z.infer<typeof HeartbeatBody>;
        return heartbeat(ctx, bridgeOf(request), body.configVersion);
      },
    );

    app.post(
      '/bridge/access',
      options(AccessBody, 'May this key card or member use the bridge\u2019s resource now?'),
      async (request) => {
        return httpAccess(ctx, bridgeOf(request), request.body as z.infer<typeof AccessBody>);
      },
    );

    app.post(
      '/bridge/update',
      options(UpdateBody, 'The bridge reports on a running session (idle time, metadata, the charge so far)'),
      async (request, reply) => {
        const body = request.body as z.infer<typeof UpdateBody>;
        const session = body.session ?? body.currentSession;
        if (session?.id && !(await httpUpdate(ctx, bridgeOf(request), { ...session, id: session.id })))
          throw notFound('Session');
        return reply.code(204).send();
      },
    );

    app.post(
      '/bridge/stop',
      options(StopBody, 'The bridge ended a session (with its idle time, metadata and an extra charge)'),
      async (request, reply) => {
        const body = request.body as z.infer<typeof StopBody>;
        const session = body.currentSession;
        // No session (`{id: 0}`): nothing to stop.
        if (
          session?.id &&
          !(await httpStop(ctx, bridgeOf(request), {
            stopType: body.stopType,
            currentSession: { ...session, id: session.id },
          }))
        )
          throw notFound('Session');
        return reply.code(204).send();
      },
    );
  };
}
