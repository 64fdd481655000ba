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
import type { OperationDoc } from '../http/openapi-doc.js';

/** What every operation of the bridge API has in common, for its description. */
const bridgeApi =
  'Authenticated with the bridge API key; every request keeps the bridge online. Bodies as JSON or form-encoded (nested fields as `currentSession[id]`); fields the hub does not use (`previousSession`, firmware details) are ignored.';

/** Fabman's HTTP bridge API (resources/http-bridge.ts) as the existing DIY bridges speak it; the bodies in bridge-api.schemas.ts. */
export function bridgeApiRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    // Bridges authenticate with their bridge API key, not a member's token, before the body is
    // looked at (401 comes before 400). Every authenticated request keeps the bridge online.
    const bridges = new WeakMap<FastifyRequest, HttpBridge>();
    const bridgeOf = (request: FastifyRequest) => bridges.get(request) as HttpBridge;
    const options = (body: z.ZodType, doc: OperationDoc) => ({
      schema: { tags: ['bridge'], ...doc, body, security: [{ bearer: [] }] },
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
      options(HeartbeatBody, {
        summary: 'A bridge is alive; answers its config when the bridge holds an older one',
        description: `${bridgeApi} Answers \`{config}\`: the bridge’s configuration (with \`offlineKeys\` as \`{type, token}\` cards of the members who may use its resource) when it holds an older \`configVersion\` or none (\`null\`, 0), else \`config: null\`.`,
        example: { configVersion: 12 },
      }),
      async (request) => {
        const body = request.body as z.infer<typeof HeartbeatBody>;
        return heartbeat(ctx, bridgeOf(request), body.configVersion);
      },
    );

    app.post(
      '/bridge/access',
      options(AccessBody, {
        summary: 'May this key card or member use the bridge\u2019s resource now?',
        description: `${bridgeApi} Runs the access policy for the card (or member, by id or e-mail address) at the bridge’s resource, writes the log, and answers Fabman’s access response: \`type\` allowed (with a numeric \`sessionId\`, \`maxDuration\`, \`stopped\`, \`member\` and \`messages\` [first name, last name] for the display), denied (with \`reason\` and \`messages\`) or message; \`config\` as for the heartbeat. A \`currentSession.id\` of 0 means no session.`,
        example: {
          keys: [{ type: 'em4102', token: '0A1B2C3D4E' }],
          currentSession: { id: 0 },
          configVersion: 12,
        },
      }),
      async (request) => {
        return httpAccess(ctx, bridgeOf(request), request.body as z.infer<typeof AccessBody>);
      },
    );

    app.post(
      '/bridge/update',
      options(UpdateBody, {
        summary: 'The bridge reports on a running session (idle time, metadata, the charge so far)',
        description: `${bridgeApi} \`session\` (or \`currentSession\`) with its \`id\`, \`idleDurationSeconds\`, \`metadata\` (merged into the log’s) and \`charge\` so far (price rounded to cents). Answers 204; a stopped session stays as it is; 404 when the session is unknown.`,
        example: { session: { id: 4711, idleDurationSeconds: 30, metadata: { job: 'box.gcode' } } },
      }),
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
      options(StopBody, {
        summary: 'The bridge ended a session (with its idle time, metadata and an extra charge)',
        description: `${bridgeApi} With its idle time, metadata and an extra charge (a float price such as 0.0259245 is rounded to cents), billed to the session’s member once. Answers 204 (also for \`id: 0\`, no session, and for a session already stopped); 404 when the session is unknown.`,
        example: {
          stopType: 'normal',
          currentSession: {
            id: 4711,
            idleDurationSeconds: 120,
            charge: { price: 2.5, description: 'Filament' },
          },
        },
      }),
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
