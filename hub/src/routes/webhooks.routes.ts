import {
  WebhookCategory,
  WebhookCreate,
  WebhookDeliveryState,
  WebhookEventRecord,
  WebhookEventType,
  WebhookState,
  WebhookTestBody,
  WebhookUpdate,
  WebhookWithSecret,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { requireAdmin } from '../http/auth.js';
import { collection, collectionRoutes } from '../http/collection.js';
import { orderParam, pageParams, sendPage } from '../http/list.js';
import { adminOnly } from '../kernel/caller.js';
import {
  createWebhook,
  filterWebhooks,
  findWebhook,
  findWebhookEvent,
  listWebhookEvents,
  resumeDeliveries,
  visibleWebhooks,
  webhookChanges,
  webhookOrder,
  webhookRecord,
} from '../webhooks/webhooks.js';
import { sendTestEvent } from '../webhooks/worker.js';
import { pathId } from '../http/params.js';
import { pagedNote } from '../http/openapi-doc.js';

const IdParams = z.object({ webhookId: pathId });

const EventsQuery = z.object({
  limit: pageParams.limit,
  offset: pageParams.offset,
  type: WebhookEventType.optional(),
  state: WebhookDeliveryState.optional(),
});

const urlRules = (ctx: HubServices) => ({
  policy: { allowInsecure: ctx.webhooks.allowInsecure },
  seal: (plain: string) => ctx.tokens.seal(plain),
  open: (sealed: string) => ctx.tokens.open(sealed),
});

/** spec 4: webhooks (admins only; superusers see every account's). */
export const webhooks = collection({
  table: 'webhooks',
  // Create and rotate answers carry the signing secret, shown only then.
  record: WebhookWithSecret,
  scope: (_ctx, caller, _params, db) => visibleWebhooks(db, adminOnly(caller)),
  records: (ctx, rows) => rows.map((row) => webhookRecord(row, ctx.tokens)),
  list: {
    rule: 'admin',
    query: {
      state: WebhookState.optional(),
      category: WebhookCategory.optional().describe('Only webhooks that receive this category'),
      orderBy: z.enum(['id', 'label', 'url', 'createdAt', 'updatedAt']).default('id'),
      order: orderParam,
    },
    where: (base, query) => filterWebhooks(base, query),
    order: (query) => webhookOrder(query),
  },
  create: {
    body: WebhookCreate,
    insert: (trx, { ctx, caller, body, at }) => createWebhook(trx, caller, body, { ...urlRules(ctx), at }),
    answer: (record, row, ctx) => ({ ...record, secret: ctx.tokens.open(row.secretEncrypted) }),
  },
  update: {
    body: WebhookUpdate,
    columns: (body, row, { ctx }) => webhookChanges(row, body, urlRules(ctx)),
    // Setting `active` also resumes a failing or deactivated webhook: its queue goes out now.
    written: (trx, before, after, ctx) => resumeDeliveries(trx, before, after, ctx.clock.now().toISOString()),
    answer: (record, before, after, ctx) =>
      after.secretEncrypted === before.secretEncrypted
        ? record
        : { ...record, secret: ctx.tokens.open(after.secretEncrypted) },
  },
  // The delivery worker may hold the webhook's deliveries at this moment (PostgreSQL).
  remove: { retry: true },
  docs: {
    list: {
      summary: 'List webhooks',
      description: `Filters: \`state\`, \`category\`; \`orderBy\` and \`order\` sort. ${pagedNote}`,
      admins: true,
    },
    get: {
      summary: 'Get a webhook',
      description: 'Without its secret.',
      admins: true,
    },
    create: {
      summary: 'Add a webhook',
      description:
        'Events of the chosen categories are POSTed to the URL, signed (Standard Webhooks); the secret is answered this once. Only public https URLs are accepted (unless HUB_WEBHOOK_ALLOW_INSECURE is set).',
      errors: {
        422: 'The URL is not allowed (not https, or a private or loopback address; `data.unsafeUrl`).',
      },
      example: {
        url: 'https://example.org/hooks/makerspace',
        label: 'Accounting',
        categories: ['member', 'invoice'],
      },
    },
    update: {
      summary: 'Change a webhook',
      description:
        'Setting `state: active` resumes a failing webhook and sends its queue now; `rotateSecret: true` answers a new secret.',
      errors: { 422: 'The URL is not allowed (`data.unsafeUrl`).' },
      example: { lockVersion: 2, state: 'paused' },
    },
    remove: {
      summary: 'Delete a webhook',
    },
  },
});

/** spec 4: webhooks, their recent events with every attempt, and test events. */
export function webhooksRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, webhooks, async (app) => {
    app.get(
      '/webhooks/:webhookId/events',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'List a webhook’s recent events',
          description: `Each event with every delivery attempt; \`type\` and \`state\` filter. ${pagedNote}`,
          admins: true,
          params: IdParams,
          querystring: EventsQuery,
          response: { 200: z.array(WebhookEventRecord) },
        },
      },
      async (request, reply) => {
        const row = await findWebhook(ctx.db, requireAdmin(request), request.params.webhookId);
        const { total, records } = await listWebhookEvents(ctx.db, row.id, request.query);
        return sendPage(request, reply, { ...request.query, total }, records, ctx.publicUrl);
      },
    );

    const sendTest = async (request: any) => {
      const caller = requireAdmin(request);
      const row = await findWebhook(ctx.db, caller, request.params.webhookId);
      const message = (request.body as { message?: string } | undefined)?.message ?? 'This is a test event.';
      const deliveryId = await sendTestEvent(
        ctx.db,
        { tokens: ctx.tokens, settings: ctx.webhooks, clock: ctx.clock },
        row,
        {
          message,
          createdBy: caller.memberId,
        },
      );
      return findWebhookEvent(ctx.db, deliveryId);
    };
    const testSchema = {
      tags: ['webhooks'],
      summary: 'Send a test event',
      admins: true as const,
      example: { message: 'Hello from the makerspace' },
      params: IdParams,
      body: WebhookTestBody.nullish(),
      response: { 200: WebhookEventRecord },
    };
    const queues = 'Queues a test event to the webhook’s URL and answers it with its delivery state.';
    app.post('/webhooks/:webhookId/events', { schema: { ...testSchema, description: queues } }, sendTest);
    const same = 'The same as POST /webhooks/{webhookId}/events.';
    app.post('/webhooks/:webhookId/test', { schema: { ...testSchema, description: same } }, sendTest);
  });
}
