import {
  AccessCheck,
  AccessCheckQuery,
  type AccessCheckReason,
  SwitchOnBody,
  SwitchOnResult,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { callerOf } from '../http/auth.js';
import { isAdmin } from '../kernel/caller.js';
import { HttpError } from '../errors.js';
import { denyMessage, zoneOf } from '../access/policy.js';
import { findResourceInAccount } from '../resources/resources.js';
import { readStatuses, statusFor } from '../resources/status.js';
import {
  checkCode,
  interlockAt,
  policyVerdict,
  switchOff,
  switchOn,
  switchOnFacts,
  unreachableWords,
} from '../resources/switch-on.js';
import { ResourceParams } from '../http/params.js';
import { interlockMessage } from '../resources/bridge-inputs.js';
import { registerStickerRoute } from './sticker.routes.js';
import { resourceTypeName } from '../resources/resources.repository.js';

/** spec 4.8 and DESIGN 6/11: switch-on and switch-off, the verdict before it, and the QR sticker (sticker.routes.ts). */
export function switchOnRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const switchOnRoute = {
      schema: {
        tags: ['switch-on'],
        summary: 'Switch a resource on (a door opens for its pulse)',
        description:
          'The member must be allowed by the access policy and send the resource’s switch-on code (from its QR sticker); admins and owners may leave the code out. 403 with `data.reason` when refused, 429 with `Retry-After` after too many wrong codes, 503 when the bridge is offline, 504 when it does not answer in time.',
        errors: {
          400: 'A member (not an admin or owner) sent no `code`.',
          403: 'The access policy or a wrong code refused: `data.reason` says why (noPackage, openingHours, wrongCode, ...); `interlock` when an interlock of the machine (its label in the message) is open.',
          429: 'Too many wrong codes for this member and resource (`data.reason: tooManyAttempts`); wait `Retry-After` seconds.',
          502: 'The bridge answered that it could not switch.',
          503: 'The bridge of this resource is offline (`data.reason: bridgeOffline`), or online over the HTTP bridge API only, which no command reaches (`data.reason: noRemoteSwitch`).',
          504: 'The bridge did not answer in time (`data.reason: noReply`).',
        },
        errorExamples: {
          403: { message: 'The space is closed now', data: { reason: 'openingHours' } },
          429: { message: 'Too many failed attempts; try again later', data: { reason: 'tooManyAttempts' } },
          503: { message: 'The bridge of this resource is offline', data: { reason: 'bridgeOffline' } },
          504: { message: 'No reply from the bridge within 5 s', data: { reason: 'noReply' } },
        },
        example: { code: 'k3x9-QR7m' },
        params: ResourceParams,
        // No body at all (or `false`) is an admin's switch-on without a code.
        body: SwitchOnBody.nullable().optional(),
        response: { 200: SwitchOnResult },
      },
    };
    const switchOnHandler = async (request: any) => {
      const started = performance.now();
      let outcome = 'switched';
      try {
        return await switchOn(ctx, callerOf(request), request.params.resourceId, request.body?.code);
      } catch (err) {
        outcome = switchOnOutcome(err);
        throw err;
      } finally {
        ctx.metrics.switchOns.inc({ outcome });
        ctx.metrics.switchOnSeconds.observe({ outcome }, (performance.now() - started) / 1000);
      }
    };
    app.post('/resources/:resourceId/switch-on', switchOnRoute, switchOnHandler);
    // Fabman's spelling of the same operation answers 201, as Fabman does: clients of it (the Home
    // Assistant integration) take any other status for a failure.
    app.post(
      '/resources/:resourceId/bridge/switch-on',
      { schema: { ...switchOnRoute.schema, response: { 201: SwitchOnResult } } },
      async (request: any, reply) => reply.code(201).send(await switchOnHandler(request)),
    );

    const switchOffRoute = {
      schema: {
        tags: ['switch-on'],
        summary: 'Switch a machine off and end its session',
        description: 'Allowed to the member who runs the session and to admins.',
        errors: {
          403: 'Only the member using the resource, or an admin, may switch it off.',
          502: 'The bridge answered that it could not switch.',
          503: 'The bridge of this resource is offline (`bridgeOffline`) or reachable over HTTP only (`noRemoteSwitch`).',
          504: 'The bridge did not answer in time.',
        },
        params: ResourceParams,
      },
    };
    const switchOffHandler = async (request: any) => {
      const caller = callerOf(request);
      const row = await findResourceInAccount(ctx.db, caller, request.params.resourceId);
      return switchOff(ctx, caller, row, isAdmin(caller));
    };
    app.post('/resources/:resourceId/bridge/switch-off', switchOffRoute, async (request: any, reply) =>
      reply.code(201).send(await switchOffHandler(request)),
    );
    // The spelling beside POST /resources/{id}/switch-on (200).
    app.post('/resources/:resourceId/switch-off', switchOffRoute, switchOffHandler);

    memberRoute(
      app,
      'get',
      '/resources/:resourceId/access-check',
      {
        tags: ['switch-on'],
        summary: 'What switch-on would answer now, without switching',
        description:
          'Runs the same access policy as switch-on for the caller at this moment and reports the verdict with its reason in words, when the reason ends (the space opens, a booking ends), the training courses that would allow the resource, and the resource’s live state. Writes no log and switches nothing. A `code` from an old QR sticker answers `staleCode`; whether any other code is right is only told by switch-on itself.',
        params: ResourceParams,
        querystring: AccessCheckQuery,
        response: { 200: AccessCheck },
      },
      async (request, caller) => {
        const facts = await switchOnFacts(ctx, caller, request.params.resourceId);
        const { resource } = facts;
        const [decision, type, zone, [statusRow]] = await Promise.all([
          policyVerdict(ctx, facts),
          resource.type === null ? undefined : resourceTypeName(facts.request.reads, resource.type),
          // The policy read the space's zone already (shared per request): no second query.
          zoneOf(facts.request),
          readStatuses(facts.request.reads, [resource.id]),
        ]);
        const status = statusFor({ memberId: caller.memberId, admin: isAdmin(caller) }, statusRow);
        let reason: AccessCheckReason | null = null;
        let message = 'You may use it now';
        if (!decision.allowed) {
          reason = decision.reason;
          message = decision.message;
        } else if (
          request.query.code !== undefined &&
          (await checkCode(ctx, facts, request.query.code)) === 'stale'
        ) {
          reason = 'staleCode';
          message = denyMessage('staleCode');
        } else if (!status.bridge) {
          reason = 'noBridge';
          message = 'This resource has no bridge yet';
        } else if (!status.online) {
          reason = 'bridgeOffline';
          message = unreachableWords.bridgeOffline;
        } else if (!ctx.bridges.isOnline(resource.id)) {
          // Online by its heartbeats over HTTP, but holding no broker connection: no command
          // reaches it (switch-on answers 503 with the same reason).
          reason = 'noRemoteSwitch';
          message = unreachableWords.noRemoteSwitch;
        } else {
          // The agent's interlocks as last reported: the member learns before the tap.
          const interlock = await interlockAt(facts.request.reads, resource.id);
          if (interlock !== null) {
            reason = 'interlock';
            message = interlockMessage(interlock);
          }
        }
        const denial = decision.allowed ? undefined : decision;
        return {
          resource: {
            id: resource.id,
            name: resource.name,
            controlType: resource.controlType as AccessCheck['resource']['controlType'],
            type: type ?? null,
            displayTitle: resource.displayTitle,
            safetyMessage: resource.safetyMessage,
            lockReason: resource.state === 'locked' ? resource.lockReason : null,
            space: resource.space,
          },
          allowed: reason === null,
          reason,
          message,
          until: denial?.until ?? null,
          retryAfter: denial?.retryAfter ?? null,
          maxDuration: decision.allowed && resource.controlType !== 'door' ? decision.maxDuration : null,
          trainingCourses: (denial?.details?.trainingCourses as AccessCheck['trainingCourses']) ?? [],
          trainingExpired: (denial?.details?.trainingExpired as string | undefined) ?? null,
          timezone: zone,
          status,
        } satisfies AccessCheck;
      },
    );

    registerStickerRoute(app, ctx);
  };
}

/** The metrics label of a failed switch-on: the reason it carries (a bounded set), else its status. */
function switchOnOutcome(err: unknown): string {
  if (err instanceof HttpError) {
    const reason = (err.data as { reason?: unknown } | undefined)?.reason;
    return typeof reason === 'string' ? reason : `http${err.statusCode}`;
  }
  return 'error';
}
