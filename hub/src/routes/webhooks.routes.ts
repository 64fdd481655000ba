import {
  WebhookCategory,
  WebhookCreate,
  WebhookDeliveryState,
  WebhookEventRecord,
  WebhookEventType,
  WebhookRecord,
  WebhookState,
  WebhookTestBody,
  WebhookUpdate,
  WebhookWithSecret,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { now, updateLocked, retryOnConflict } from '../db/crud.js';
import { requireAdmin } from '../http/auth.js';
import { orderParam, pageParams, sendPage } from '../http/list.js';
import { sanitizeRichText } from '../rich-text.js';
import {
  assertSafeUrl,
  findWebhook,
  findWebhookEvent,
  listWebhookEvents,
  listWebhooks,
  newWebhookSecret,
  webhookRecord,
} from '../webhooks/webhooks.js';
import { sendTestEvent } from '../webhooks/worker.js';

const IdParams = z.object({ webhookId: z.coerce.number().int().positive() });

const ListQuery = z.object({
  ...pageParams,
  state: WebhookState.optional(),
  category: WebhookCategory.optional().describe('Only webhooks that receive this category'),
  orderBy: z.enum(['id', 'label', 'url', 'createdAt', 'updatedAt']).default('id'),
  order: orderParam,
});

const EventsQuery = z.object({
  limit: pageParams.limit,
  offset: pageParams.offset,
  type: WebhookEventType.optional(),
  state: WebhookDeliveryState.optional(),
});

const uniq = <T>(values: T[]) => [...new Set(values)];

/** spec 4: webhooks (admins only), their recent events with every attempt, and test events. */
export function webhooksRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  const policy = { allowInsecure: ctx.webhooks.allowInsecure };
  return async (app) => {
    app.get(
      '/webhooks',
      { schema: { tags: ['webhooks'], querystring: ListQuery, response: { 200: z.array(WebhookRecord) } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const { total, rows } = await listWebhooks(ctx.db, caller, request.query);
        return sendPage(request, reply, { ...request.query, total }, rows.map(webhookRecord), ctx.publicUrl);
      },
    );

    app.post(
      '/webhooks',
      { schema: { tags: ['webhooks'], body: WebhookCreate, response: { 201: WebhookWithSecret } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const body = request.body;
        await assertSafeUrl(body.url, policy);
        const secret = newWebhookSecret();
        const at = now();
        const row = await ctx.db
          .insertInto('webhooks')
          .values({
            account: caller.accountId,
            url: body.url,
            label: body.label ?? null,
            state: body.state ?? 'active',
            notes: sanitizeRichText(body.notes) ?? null,
            categories: JSON.stringify(uniq(body.categories)),
            secretEncrypted: ctx.tokens.seal(secret),
            failingSince: null,
            createdAt: at,
            updatedAt: at,
            updatedBy: caller.memberId,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return reply.code(201).send({ ...webhookRecord(row), secret });
      },
    );

    app.get(
      '/webhooks/:webhookId',
      { schema: { tags: ['webhooks'], params: IdParams, response: { 200: WebhookRecord } } },
      async (request) =>
        webhookRecord(await findWebhook(ctx.db, requireAdmin(request), request.params.webhookId)),
    );

    app.put(
      '/webhooks/:webhookId',
      {
        schema: {
          tags: ['webhooks'],
          params: IdParams,
          body: WebhookUpdate,
          response: { 200: WebhookWithSecret },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const current = await findWebhook(ctx.db, caller, request.params.webhookId);
        const { lockVersion, rotateSecret, url, label, state, notes, categories } = request.body;
        if (url !== undefined && url !== current.url) await assertSafeUrl(url, policy);
        const secret = rotateSecret ? newWebhookSecret() : undefined;
        // Setting `active` also resumes a failing or deactivated webhook: its queue goes out now.
        const resume = state === 'active' && current.state !== 'active';
        const values: Record<string, unknown> = {};
        if (url !== undefined) values.url = url;
        if (label !== undefined) values.label = label;
        if (notes !== undefined) values.notes = sanitizeRichText(notes);
        if (categories !== undefined) values.categories = JSON.stringify(uniq(categories));
        if (state !== undefined) values.state = state;
        if (secret) values.secretEncrypted = ctx.tokens.seal(secret);
        if (resume) Object.assign(values, { failingSince: null, consecutiveFailures: 0 });
        await ctx.events.transaction(async (trx) => {
          await updateLocked(trx, 'webhooks', current.id, lockVersion, values, caller.memberId);
          if (resume) {
            await trx
              .updateTable('webhook_deliveries')
              .set({ nextAttemptAt: now() })
              .where('webhook', '=', current.id)
              .where('state', '=', 'pending')
              .execute();
          }
        });
        const record = webhookRecord(await findWebhook(ctx.db, caller, current.id));
        return secret ? { ...record, secret } : record;
      },
    );

    app.delete(
      '/webhooks/:webhookId',
      { schema: { tags: ['webhooks'], params: IdParams } },
      async (request, reply) => {
        const row = await findWebhook(ctx.db, requireAdmin(request), request.params.webhookId);
        // The delivery worker may hold the webhook's deliveries at this moment (PostgreSQL).
        await retryOnConflict(() => ctx.db.deleteFrom('webhooks').where('id', '=', row.id).execute());
        return reply.code(204).send();
      },
    );

    app.get(
      '/webhooks/:webhookId/events',
      {
        schema: {
          tags: ['webhooks'],
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
      const deliveryId = await sendTestEvent(ctx.db, { tokens: ctx.tokens, settings: ctx.webhooks }, row, {
        message,
        createdBy: caller.memberId,
      });
      return findWebhookEvent(ctx.db, deliveryId);
    };
    const testSchema = {
      tags: ['webhooks'],
      params: IdParams,
      body: WebhookTestBody.nullish(),
      response: { 200: WebhookEventRecord },
    };
    app.post('/webhooks/:webhookId/events', { schema: testSchema }, sendTest);
    app.post('/webhooks/:webhookId/test', { schema: testSchema }, sendTest);
  };
}
