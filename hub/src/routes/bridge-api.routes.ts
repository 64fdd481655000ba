import { KeyType, StopType } from '@makerspace/shared';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { tokenFromHeader } from '../http/auth.js';
import { notFound } from '../errors.js';
import { bridgeByKey, type HttpBridge, heartbeat, httpAccess, httpStop } from '../resources/http-bridge.js';

/*
 * Fabman's HTTP bridge API (resources/http-bridge.ts). Bridges send fields of their own besides
 * these (firmware versions, diagnostics): unknown fields are ignored, known ones are checked.
 */

const configVersion = z.number().int().nonnegative().optional();

const HeartbeatBody = z.looseObject({ configVersion });

// Card readers send hex in either case; member keys are stored upper-case.
const BridgeKey = z.object({
  type: KeyType,
  token: z
    .string()
    .regex(/^[0-9a-fA-F]{1,64}$/, 'must be hex')
    .transform((t) => t.toUpperCase()),
});

const AccessBody = z
  .looseObject({
    keys: z.array(BridgeKey).min(1).max(10).optional(),
    emailAddress: z.string().min(1).max(200).optional(),
    member: z.number().int().positive().optional(),
    configVersion,
    currentSession: z
      .object({ id: z.string().min(1).max(64) })
      .nullable()
      .optional(),
  })
  .refine((b) => [b.keys, b.emailAddress, b.member].filter((v) => v !== undefined).length === 1, {
    message: 'Give exactly one of keys, emailAddress and member',
  });

const Money = z.union([
  z.number().nonnegative().max(1_000_000),
  z.string().regex(/^\d{1,7}(\.\d{1,2})?$/, 'must be an amount such as 12.50'),
]);

const StopBody = z.looseObject({
  stopType: StopType,
  currentSession: z.object({
    id: z.string().min(1).max(64),
    idleDurationSeconds: z.number().int().nonnegative().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    charge: z.object({ price: Money, description: z.string().min(1).max(200) }).optional(),
  }),
});

export function bridgeApiRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    // Bridges authenticate with their bridge API key, not a member's token, before the body is
    // looked at (401 comes before 400).
    const bridges = new WeakMap<FastifyRequest, HttpBridge>();
    const bridgeOf = (request: FastifyRequest) => bridges.get(request) as HttpBridge;
    const options = (body: z.ZodType, summary: string) => ({
      schema: { tags: ['bridge'], summary, body, security: [{ bearer: [] }] },
      config: { public: true },
      onRequest: async (request: FastifyRequest) => {
        bridges.set(request, await bridgeByKey(ctx, tokenFromHeader(request.headers.authorization)));
      },
    });

    app.post(
      '/bridge/heartbeat',
      options(HeartbeatBody, 'A bridge is alive; answers its config when the bridge holds an older one'),
      async (request) => {
        const bridge = bridgeOf(request);
        const body = request.body as z.infer<typeof HeartbeatBody>;
        return heartbeat(ctx, bridge, body.configVersion);
      },
    );

    app.post(
      '/bridge/access',
      options(AccessBody, 'May this key card or member use the bridge\u2019s resource now?'),
      async (request) => {
        const bridge = bridgeOf(request);
        return httpAccess(ctx, bridge, request.body as z.infer<typeof AccessBody>);
      },
    );

    app.post(
      '/bridge/stop',
      options(StopBody, 'The bridge ended a session (with its idle time, metadata and an extra charge)'),
      async (request, reply) => {
        const bridge = bridgeOf(request);
        if (!(await httpStop(ctx, bridge, request.body as z.infer<typeof StopBody>)))
          throw notFound('Session');
        return reply.code(204).send();
      },
    );
  };
}
