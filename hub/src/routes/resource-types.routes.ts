import { ResourceTypeCreate, ResourceTypeRecord, ResourceTypeUpdate } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubContext } from '../context.js';
import { now, updateLocked } from '../db/crud.js';
import { type Caller, callerOf, requireAdmin } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { likePattern, pageParams, queryPage, sendPage } from '../http/list.js';

const IdParams = z.object({ typeId: z.coerce.number().int().positive() });

function visibleTypes(ctx: HubContext, caller: Caller) {
  const query = ctx.db.selectFrom('resource_types');
  return caller.superuser ? query : query.where('account', '=', caller.accountId);
}

/** spec 4.8: resource types (laser cutters, 3D printers, ...), which packages grant by type. */
export function resourceTypesRoutes(ctx: HubContext): FastifyPluginAsyncZod {
  const find = async (caller: Caller, id: number) => {
    const row = await visibleTypes(ctx, caller).selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('Resource type');
    return row;
  };
  return async (app) => {
    app.post(
      '/resource-types',
      { schema: { tags: ['resources'], body: ResourceTypeCreate, response: { 201: ResourceTypeRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const at = now();
        const row = await ctx.db
          .insertInto('resource_types')
          .values({
            account: caller.accountId,
            name: request.body.name,
            createdAt: at,
            updatedAt: at,
            updatedBy: caller.memberId,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return reply.code(201).send(row);
      },
    );
    app.get(
      '/resource-types',
      {
        schema: {
          tags: ['resources'],
          querystring: z.object(pageParams),
          response: { 200: z.array(ResourceTypeRecord) },
        },
      },
      async (request, reply) => {
        const { limit, offset, q } = request.query;
        let base = visibleTypes(ctx, callerOf(request));
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('name')]), 'like', likePattern(q)));
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id'));
        return sendPage(request, reply, page, page.rows, ctx.publicUrl);
      },
    );
    app.get(
      '/resource-types/:typeId',
      { schema: { tags: ['resources'], params: IdParams, response: { 200: ResourceTypeRecord } } },
      async (request) => find(callerOf(request), request.params.typeId),
    );
    app.put(
      '/resource-types/:typeId',
      {
        schema: {
          tags: ['resources'],
          params: IdParams,
          body: ResourceTypeUpdate,
          response: { 200: ResourceTypeRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await find(caller, request.params.typeId);
        const { lockVersion, name } = request.body;
        await updateLocked(
          ctx.db,
          'resource_types',
          row.id,
          lockVersion,
          name === undefined ? {} : { name },
          caller.memberId,
        );
        return find(caller, row.id);
      },
    );
    app.delete(
      '/resource-types/:typeId',
      { schema: { tags: ['resources'], params: IdParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await find(caller, request.params.typeId);
        await ctx.db.deleteFrom('resource_types').where('id', '=', row.id).execute();
        return reply.code(204).send();
      },
    );
  };
}
