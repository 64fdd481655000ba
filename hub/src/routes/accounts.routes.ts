import { AccountRecord } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubContext } from '../context.js';
import { callerOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { likePattern, pageParams, queryPage, sendPage } from '../http/list.js';
import { accountRecord, visibleAccounts } from '../identity/accounts.js';

const IdParams = z.object({ accountId: z.coerce.number().int().positive() });

/** spec 4.1: accounts (callers see their own; superusers every account). */
export function accountsRoutes(ctx: HubContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/accounts',
      {
        schema: {
          tags: ['accounts'],
          querystring: z.object(pageParams),
          response: { 200: z.array(AccountRecord) },
        },
      },
      async (request, reply) => {
        const { limit, offset, q } = request.query;
        let base = visibleAccounts(ctx.db, callerOf(request));
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('name')]), 'like', likePattern(q)));
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id'));
        return sendPage(request, reply, page, page.rows.map(accountRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/accounts/:accountId',
      { schema: { tags: ['accounts'], params: IdParams, response: { 200: AccountRecord } } },
      async (request) => {
        const row = await visibleAccounts(ctx.db, callerOf(request))
          .selectAll()
          .where('id', '=', request.params.accountId)
          .executeTakeFirst();
        if (!row) throw notFound('Account');
        return accountRecord(row);
      },
    );
  };
}
