import { WebhookEventRecord } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { requireAdmin } from '../http/auth.js';
import { retryDelivery } from '../webhooks/retry.js';
import { findWebhook, findWebhookEvent } from '../webhooks/webhooks.js';
import { pathId } from '../http/params.js';

const Params = z.object({
  webhookId: pathId,
  deliveryId: z.coerce
    .number()
    .int()
    .positive()
    .describe('`delivery.id` of an event in GET /webhooks/{id}/events'),
});

/** Admins retry one delivery of a webhook now (docs/WEBHOOKS.md). */
export function webhookDeliveriesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/webhooks/:webhookId/deliveries/:deliveryId/retry',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Retry one delivery now',
          description:
            'A queued delivery (still failing) becomes due now, with those queued before it; the hub ' +
            'tries it within a second and the answer (202) shows it pending. A failed test event is ' +
            'sent again at once and the answer (200) shows the result. 422 for a delivered one, and ' +
            'for a queued one while the webhook is paused or deactivated (set it active instead).',
          params: Params,
          response: { 200: WebhookEventRecord, 202: WebhookEventRecord },
        },
      },
      async (request, reply) => {
        const webhook = await findWebhook(ctx.db, requireAdmin(request), request.params.webhookId);
        const outcome = await retryDelivery(
          ctx.db,
          { tokens: ctx.tokens, settings: ctx.webhooks, clock: ctx.clock },
          webhook,
          request.params.deliveryId,
        );
        // Wakes the delivery worker of this process (others poll the outbox within a second).
        if (outcome === 'scheduled') ctx.events.committed();
        const record = await findWebhookEvent(ctx.db, request.params.deliveryId);
        return reply.code(outcome === 'scheduled' ? 202 : 200).send(record);
      },
    );
  };
}
