import { ApiKeyCreate, ApiKeyRecord, ApiKeyToken, ApiKeyUpdate, Id } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubContext } from '../context.js';
import { updateLocked } from '../db/crud.js';
import { callerOf, isAdmin } from '../http/auth.js';
import { forbidden } from '../http/errors.js';
import { likePattern, pageParams, queryPage, sendPage } from '../http/list.js';
import { apiKeyRecord, findApiKey, insertApiKey, visibleApiKeys } from '../identity/api-keys.js';
import { findMember } from '../identity/members.js';

const IdParams = z.object({ apiKeyId: z.coerce.number().int().positive() });
const ListQuery = z.object({ ...pageParams, member: Id.optional() });

/** spec 4.1: API keys. */
export function apiKeysRoutes(ctx: HubContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api-keys',
      { schema: { tags: ['api-keys'], body: ApiKeyCreate, response: { 201: ApiKeyRecord } } },
      async (request, reply) => {
        const caller = callerOf(request);
        const memberId = request.body.member ?? caller.memberId;
        if (memberId !== caller.memberId && !isAdmin(caller)) {
          throw forbidden('Members may create API keys only for themselves');
        }
        const member = await findMember(ctx.db, caller, memberId);
        const { row } = await insertApiKey(ctx.db, ctx.tokens, {
          account: member.account,
          member: member.id,
          label: request.body.label ?? null,
          createdBy: caller.memberId,
        });
        return reply.code(201).send(apiKeyRecord(row));
      },
    );

    app.get(
      '/api-keys',
      { schema: { tags: ['api-keys'], querystring: ListQuery, response: { 200: z.array(ApiKeyRecord) } } },
      async (request, reply) => {
        const { limit, offset, q, member } = request.query;
        let base = visibleApiKeys(ctx.db, callerOf(request));
        if (member) base = base.where('member', '=', member);
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('label')]), 'like', likePattern(q)));
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id'));
        return sendPage(request, reply, page, page.rows.map(apiKeyRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/api-keys/:apiKeyId',
      { schema: { tags: ['api-keys'], params: IdParams, response: { 200: ApiKeyRecord } } },
      async (request) => apiKeyRecord(await findApiKey(ctx.db, callerOf(request), request.params.apiKeyId)),
    );

    app.put(
      '/api-keys/:apiKeyId',
      {
        schema: { tags: ['api-keys'], params: IdParams, body: ApiKeyUpdate, response: { 200: ApiKeyRecord } },
      },
      async (request) => {
        const caller = callerOf(request);
        const row = await findApiKey(ctx.db, caller, request.params.apiKeyId);
        const { lockVersion, label } = request.body;
        await updateLocked(
          ctx.db,
          'api_keys',
          row.id,
          lockVersion,
          label === undefined ? {} : { label },
          caller.memberId,
        );
        return apiKeyRecord(await findApiKey(ctx.db, caller, row.id));
      },
    );

    app.delete(
      '/api-keys/:apiKeyId',
      { schema: { tags: ['api-keys'], params: IdParams } },
      async (request, reply) => {
        const row = await findApiKey(ctx.db, callerOf(request), request.params.apiKeyId);
        await ctx.db.deleteFrom('api_keys').where('id', '=', row.id).execute();
        ctx.auth.invalidate();
        return reply.code(204).send();
      },
    );

    // The token is read back only by its member or the account's admins, and only by a call
    // that is itself made with an API key (DESIGN 4).
    app.get(
      '/api-keys/:apiKeyId/token',
      { schema: { tags: ['api-keys'], params: IdParams, response: { 200: ApiKeyToken } } },
      async (request) => {
        const caller = callerOf(request);
        const row = await findApiKey(ctx.db, caller, request.params.apiKeyId);
        if (caller.via !== 'apiKey') {
          throw forbidden('An API key token is shown only to calls made with an API key', {
            reason: 'apiKeyRequired',
          });
        }
        const own = row.member === caller.memberId;
        const accountAdmin = row.account === caller.accountId && isAdmin(caller);
        if (!own && !accountAdmin)
          throw forbidden("Only the key's member and the account's admins may read its token");
        return { token: ctx.tokens.open(row.tokenEncrypted) };
      },
    );
  };
}
