import { ApiKeyCreate, ApiKeyRecord, ApiKeyToken, ApiKeyUpdate, Id } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { forbidden } from '../errors.js';
import { collection, collectionRoutes, onRecord } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { apiKeyRecord, insertApiKey, visibleApiKeys } from '../identity/api-keys.js';
import { isAdmin } from '../kernel/caller.js';
import { findMember } from '../identity/members.js';
import { pathId } from '../http/params.js';
import { pagedNote } from '../http/openapi-doc.js';

/** spec 4.1: API keys. Members manage their own; admins their account's. */
export const apiKeys = collection({
  table: 'api_keys',
  id: 'apiKeyId',
  noun: 'API key',
  record: ApiKeyRecord,
  visible: visibleApiKeys,
  toRecord: apiKeyRecord,
  list: { search: 'label', equals: { member: Id.optional() } },
  create: {
    body: ApiKeyCreate,
    rule: 'member',
    insert: async (trx, { ctx, caller, body, at }) => {
      const memberId = body.member ?? caller.memberId;
      if (memberId !== caller.memberId && !isAdmin(caller)) {
        throw forbidden('Members may create API keys only for themselves');
      }
      const member = await findMember(trx, caller, memberId);
      const { row } = await insertApiKey(
        trx,
        ctx.tokens,
        {
          account: member.account,
          member: member.id,
          label: body.label ?? null,
          createdBy: caller.memberId,
        },
        at,
      );
      return row;
    },
  },
  update: { body: ApiKeyUpdate, rule: 'member' },
  remove: { rule: 'member' },
  // A deleted key stops working at once.
  committed: (ctx, _row, write) => write === 'remove' && ctx.auth.invalidate(),
  docs: {
    list: {
      summary: 'List API keys',
      description: `Members see their own keys, admins every key of their account. \`member\` filters, \`q\` searches the label. ${pagedNote}`,
    },
    get: {
      summary: 'Get an API key',
      description: 'The key without its token.',
    },
    create: {
      summary: 'Create an API key',
      description:
        'A token that acts as its member. Members create keys for themselves; admins for any member of their account. Read the token with GET /api-keys/{apiKeyId}/token.',
      example: { label: 'Door display', member: 42 },
    },
    update: {
      summary: 'Change an API key’s label',
      example: { lockVersion: 1, label: 'Front desk tablet' },
    },
    remove: {
      summary: 'Revoke an API key',
      description: 'The token stops working at once.',
    },
  },
});

export function apiKeysRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, apiKeys, async (app) => {
    // The token is read back only by its member or the account's admins, and only by a call
    // that is itself made with an API key (DESIGN 4).
    memberRoute(
      app,
      'get',
      '/api-keys/:apiKeyId/token',
      {
        tags: ['api-keys'],
        summary: "Read an API key's token",
        description:
          "The key's token, for its member and the account's admins, and only to a call made with an API key.",
        errors: {
          403: 'The call was made with a browser session (`data.reason: apiKeyRequired`), or the caller is neither the key’s member nor an admin of its account.',
        },
        params: z.object({ apiKeyId: pathId }),
        response: { 200: ApiKeyToken },
      },
      onRecord(apiKeys, ctx, (row, _request, caller) => {
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
      }),
    );
  });
}
