import {
  Id,
  ShadowReceiver,
  ShadowReceiverInput,
  ShadowReport,
  ShadowWebhookResult,
} from '@makerspace/shared';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicOrigin } from '../http/server-options.js';
import { adminRoute } from '../http/route.js';
import { adminCreatedRoute, adminNoContentRoute, publicRoute } from '../http/route-kinds.js';
import type { HubServices } from '../http/services.js';
import type { Caller } from '../kernel/caller.js';
import type { Db } from '../db/crud.js';
import {
  listReceivers,
  makeReceiver,
  receiveShadowEvent,
  receiverPath,
  receiverRecord,
  removeReceiver,
  rotateReceiver,
} from '../shadow/shadow-webhook.js';
import { shadowReport } from '../shadow/shadow.js';

type Issued = Awaited<ReturnType<typeof makeReceiver>>;

const tags = ['access'];
const ReceiverParams = z.object({ receiverId: Id });

/**
 * Shadow mode's report for the console (docs/MOVING.md), filled by `makerspace-hub shadow` and
 * by the webhook receiver, and the receivers' management.
 */
export function shadowRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  /**
   * Gives a receiver a secret (`issue`, with `subject`: the source of a new receiver, or the id
   * of one to rotate), by the caller now, and answers the receiver with its URL, shown only now.
   */
  const withSecretUrl = async <Subject>(
    request: FastifyRequest,
    caller: Caller,
    issue: (db: Db, account: number, subject: Subject, at: string, by: number | null) => Promise<Issued>,
    subject: Subject,
  ) => {
    const at = ctx.clock.now().toISOString();
    const { row, secret } = await issue(ctx.db, caller.accountId, subject, at, caller.memberId || null);
    return receiverRecord(row, `${publicOrigin(ctx.publicUrl, request)}${receiverPath(row.id, secret)}`);
  };

  return async (app) => {
    adminRoute(
      app,
      'get',
      '/shadow-report',
      {
        tags,
        summary: 'Shadow mode: our decisions beside another server’s (admins)',
        description:
          'What shadow mode compared so far (`makerspace-hub shadow` and the webhook receiver): for each resource of the other server, how many of its allowed and denied decisions our access policy decides the same way, and the latest disagreements (`limit`, default 500) with both reasons. Empty until something was compared.',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(5000).default(500) }),
        response: { 200: ShadowReport },
      },
      async (request, caller) => shadowReport(ctx.db, caller.accountId, request.query.limit) as never,
    );

    adminRoute(
      app,
      'get',
      '/shadow-receivers',
      {
        tags,
        summary: 'Shadow mode’s webhook receivers (admins)',
        description:
          'The account’s receivers of another server’s resource log events, one per source, with the time of the latest event. Never their secret URLs.',
        response: { 200: z.array(ShadowReceiver) },
      },
      async (_request, caller) => listReceivers(ctx.db, caller.accountId),
    );

    adminCreatedRoute(
      app,
      'post',
      '/shadow-receivers',
      {
        tags,
        summary: 'Make the webhook receiver URL for another server (admins)',
        description:
          'Answers the secret URL (`url`, shown only now) to paste into the other server’s webhook settings, for events of the `resourceLog` category. `source` names the other server as `makerspace-hub shadow --url` does, so its ids translate alike and each decision is compared once, whether polled or received. A source that has a receiver already gets a new secret URL (the earlier one stops working). 201.',
        body: ShadowReceiverInput,
        example: { source: 'https://fabman.example/api/v1' },
        response: { 201: ShadowReceiver },
      },
      (request, caller) => withSecretUrl(request, caller, makeReceiver, request.body.source),
    );

    adminRoute(
      app,
      'post',
      '/shadow-receivers/:receiverId/rotate',
      {
        tags,
        summary: 'Give a webhook receiver a new secret URL (admins)',
        description:
          'Answers the new URL (`url`, shown only now); the earlier one is refused (404) from now on. Paste the new one into the other server’s webhook settings.',
        params: ReceiverParams,
        response: { 200: ShadowReceiver },
      },
      (request, caller) => withSecretUrl(request, caller, rotateReceiver, request.params.receiverId),
    );

    adminNoContentRoute(
      app,
      'delete',
      '/shadow-receivers/:receiverId',
      {
        tags,
        summary: 'Remove a webhook receiver (admins)',
        description: 'Its URL is refused (404) from now on; what it compared stays in the report. 204.',
        params: ReceiverParams,
      },
      (request, caller) => removeReceiver(ctx.db, caller.accountId, request.params.receiverId),
    );

    // The other server cannot send our tokens: the secret in the URL is the credential.
    publicRoute(
      app,
      'post',
      '/shadow/webhook/:receiverId/:secret',
      {
        tags,
        summary: 'Receive another server’s resource log events (shadow mode)',
        description:
          'The URL `POST /shadow-receivers` answers, to paste into the other server’s webhook settings (the commercial service’s or another hub’s, category `resourceLog`). Each `resourceLog_created` or `resourceLog_updated` event whose `details.log` is an allowed or denied decision is compared at once with our access policy’s decision for the same member, resource and moment, like `makerspace-hub shadow` does; a log compared already (a retried or replayed delivery, or one the command polled) is not compared again. Other event types, and logs that are no decision, answer 200 and change nothing. Needs no token: the secret in the URL authenticates (a wrong one is 404).',
        security: [],
        params: z.object({ receiverId: Id, secret: z.string().min(1).max(100) }),
        body: z
          .object({
            type: z.string().describe('The event type, such as `resourceLog_created`'),
            details: z
              .object({ log: z.record(z.string(), z.unknown()).describe('Their resource log') })
              .partial()
              .passthrough()
              .optional(),
          })
          .passthrough(),
        example: {
          id: 5301,
          type: 'resourceLog_created',
          createdAt: '2026-11-02T17:04:11.000Z',
          details: {
            log: {
              id: 88412,
              type: 'denied',
              resource: 12,
              member: 4711,
              reason: 'noPackage',
              createdAt: '2026-11-02T17:04:10.000Z',
            },
          },
        },
        errors: {
          400: 'The body is no event, or a resource log event’s `details.log` lacks its id, type, resource or createdAt (nothing is stored).',
          404: 'No receiver with this id and secret.',
        },
        response: { 200: ShadowWebhookResult },
      },
      (request) =>
        receiveShadowEvent(
          { db: ctx.db, policy: ctx.policy, clock: ctx.clock },
          request.params.receiverId,
          request.params.secret,
          request.body,
        ),
    );
  };
}
