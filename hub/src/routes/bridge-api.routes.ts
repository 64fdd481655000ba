import { KeyType, StopType } from '@makerspace/shared';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { tokenFromHeader } from '../http/auth.js';
import { isFormBody } from '../http/content.js';
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

/*
 * Fabman's HTTP bridge API (resources/http-bridge.ts), as the existing DIY bridges speak it.
 * Bridges send fields of their own besides these (firmware versions, diagnostics,
 * `previousSession`): unknown fields are ignored, known ones are checked. Bodies come as JSON or
 * form-encoded with nested fields (`currentSession[id]=12`, `keys[0][token]=...`), where every
 * value is a string: the fields below take numbers also as decimal strings.
 */

const wholeNumber = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .trim()
    .regex(/^\d{1,15}$/, 'must be a whole number')
    .transform(Number),
]);
/** `null`, and in forms an empty value or the word null, mean "none". */
const none = z.enum(['', 'null']).transform(() => null);
const optionalWhole = z.union([wholeNumber, none]).nullable().optional();

// A bridge without a config (or that forgot it) sends null or 0.
const configVersion = optionalWhole;

const HeartbeatBody = z
  .looseObject({ configVersion, heartbeatInterval: optionalWhole })
  .nullable()
  .optional()
  .transform((b) => b ?? {});

// Card readers send hex in either case; member keys are stored upper-case.
const BridgeKey = z.looseObject({
  type: KeyType,
  token: z
    .string()
    .regex(/^[0-9a-fA-F]{1,64}$/, 'must be hex')
    .transform((t) => t.toUpperCase()),
});

/** A session id as bridges send it: a number or a string; 0 (or nothing) means no session. */
const SessionId = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().trim().max(64), z.null()])
  .optional()
  .transform((id) =>
    id === undefined || id === null || id === 0 || id === '' || id === '0' ? null : String(id),
  );

const CurrentSession = z
  .looseObject({ id: SessionId })
  .nullable()
  .optional()
  .transform((s) => (s?.id ? { id: s.id } : null));

const AccessBody = z
  .looseObject({
    keys: z.array(BridgeKey).min(1).max(10).optional(),
    emailAddress: z.string().min(1).max(200).optional(),
    member: z
      .union([
        z.number().int().positive(),
        z
          .string()
          .trim()
          .regex(/^[1-9]\d{0,15}$/, 'must be a member id')
          .transform(Number),
      ])
      .optional(),
    configVersion,
    currentSession: CurrentSession,
  })
  .refine((b) => [b.keys, b.emailAddress, b.member].filter((v) => v !== undefined).length === 1, {
    message: 'Give exactly one of keys, emailAddress and member',
  });

const Price = z.union([
  z.number().nonnegative().max(1_000_000),
  z
    .string()
    .trim()
    .regex(/^\d{1,7}(\.\d+)?$/, 'must be an amount such as 12.50'),
]);

const SessionReport = z.looseObject({
  id: SessionId,
  idleDurationSeconds: optionalWhole,
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  charge: z
    .looseObject({ price: Price, description: z.string().max(200).nullable().optional() })
    .nullable()
    .optional(),
});

const StopBody = z.looseObject({
  stopType: StopType.optional().default('normal'),
  currentSession: SessionReport.nullable().optional(),
});

const UpdateBody = z.looseObject({
  session: SessionReport.nullable().optional(),
  // Some bridges name it as in /stop.
  currentSession: SessionReport.nullable().optional(),
});

/**
 * Form-encoded bodies name nested fields with brackets or dots (`currentSession[id]`,
 * `keys[0][type]`, `charge.price`): they become the objects and lists a JSON body would carry.
 */
export function nestFormFields(flat: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(flat)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const path = key
      .replace(/\]/g, '')
      .split(/\[|\./)
      .map((p) => (p === '' ? '0' : p));
    if (path.some((p) => p === '__proto__' || p === 'constructor' || p === 'prototype')) continue;
    let at: Record<string, unknown> = root;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) {
        // A list field sent flat (`keys=...` twice) keeps its list.
        Object.defineProperty(at, part, {
          value: path.length === 1 ? raw : value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        break;
      }
      const next = Object.hasOwn(at, part) ? at[part] : undefined;
      if (typeof next !== 'object' || next === null) {
        const child: Record<string, unknown> = {};
        Object.defineProperty(at, part, {
          value: child,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        at = child;
      } else {
        at = next as Record<string, unknown>;
      }
    }
  }
  return listify(root) as Record<string, unknown>;
}

/** Objects whose keys are all 0, 1, 2, ... become lists in that order. */
function listify(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, listify(v)] as const);
  if (entries.length > 0 && entries.every(([k]) => /^\d{1,3}$/.test(k))) {
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

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
