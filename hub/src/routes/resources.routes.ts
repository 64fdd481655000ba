import {
  BridgeApiKey,
  BridgeRecord,
  BridgeUpdate,
  ControlType,
  Id,
  ResourceCreate,
  ResourceRecord,
  ResourceUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { now, updateLocked, likePattern } from '../db/crud.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { isAdmin } from '../identity/caller.js';
import { orderParam, pageParams, embedParam, queryPage, sendPage } from '../http/list.js';
import { retiredCodeHash } from '../resources/codes.js';
import {
  bridgeRecord,
  createBridge,
  findBridge,
  heartbeatColumn,
  rotateBridgeKey,
} from '../resources/bridges.js';
import {
  findResource,
  insertResource,
  lastUsedOf,
  resourceColumns,
  type ResourceRow,
  resourceRecord,
  visibleResources,
} from '../resources/resources.js';
import { emitBridge } from '../resources/bridges.js';
import { emitResource } from '../resources/resources.js';
import type { Caller } from '../identity/caller.js';

const IdParams = z.object({ resourceId: z.coerce.number().int().positive() });
const resourceEmbeds = ['bridge'] as const;
const ListQuery = z.object({
  ...pageParams,
  space: Id.optional(),
  type: Id.optional(),
  controlType: ControlType.optional(),
  state: z.enum(['active', 'locked']).optional(),
  orderBy: z.enum(['id', 'name', 'createdAt', 'updatedAt']).default('id'),
  order: orderParam,
  embed: embedParam(resourceEmbeds),
});

/** spec 4.8: resources, their bridge and bridge API key, switch-on and switch-off. */
export function resourcesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  async function records(caller: Caller, rows: ResourceRow[], embeds: readonly string[]) {
    const lastUsed = await lastUsedOf(
      ctx.db,
      rows.map((r) => r.id),
    );
    const bridges = embeds.includes('bridge')
      ? new Map(
          (rows.length
            ? await ctx.db
                .selectFrom('bridges')
                .selectAll()
                .where(
                  'resource',
                  'in',
                  rows.map((r) => r.id),
                )
                .execute()
            : []
          ).map((b) => [b.resource, bridgeRecord(b)]),
        )
      : null;
    return rows.map((row) => ({
      ...resourceRecord(row, ctx, caller),
      lastUsed: lastUsed.get(row.id) ?? null,
      ...(bridges ? { _embedded: { bridge: bridges.get(row.id) ?? null } } : {}),
    }));
  }

  /** The config an agent works from changed: bump its version and push it. */
  async function configChanged(resourceId: number) {
    await ctx.db
      .updateTable('bridges')
      .set((eb) => ({ configVersion: eb('configVersion', '+', 1) }))
      .where('resource', '=', resourceId)
      .execute();
    await ctx.bridges.publishConfig(resourceId);
  }

  return async (app) => {
    app.get(
      '/resources',
      { schema: { tags: ['resources'], querystring: ListQuery, response: { 200: z.array(ResourceRecord) } } },
      async (request, reply) => {
        const caller = callerOf(request);
        const { limit, offset, q, space, type, controlType, state, orderBy, order, embed } = request.query;
        let base = visibleResources(ctx.db, caller);
        if (space) base = base.where('space', '=', space);
        if (type) base = base.where('type', '=', type);
        if (controlType) base = base.where('controlType', '=', controlType);
        if (state) base = base.where('state', '=', state);
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('name')]), 'like', likePattern(q)));
        const page = await queryPage(base, { limit, offset }, (b) =>
          b.selectAll().orderBy(orderBy, order).orderBy('id', order),
        );
        return sendPage(request, reply, page, await records(caller, page.rows, embed), ctx.publicUrl);
      },
    );

    app.post(
      '/resources',
      { schema: { tags: ['resources'], body: ResourceCreate, response: { 201: ResourceRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await ctx.events.transaction(async (trx) => {
          const created = await insertResource({ ...ctx, db: trx }, caller, request.body);
          await emitResource(trx, 'resource_created', created);
          return created;
        });
        return reply.code(201).send((await records(caller, [row], []))[0]);
      },
    );

    app.get(
      '/resources/:resourceId',
      {
        schema: {
          tags: ['resources'],
          params: IdParams,
          querystring: z.object({ embed: embedParam(resourceEmbeds) }),
          response: { 200: ResourceRecord },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const row = await findResource(ctx.db, caller, request.params.resourceId);
        return (await records(caller, [row], request.query.embed))[0];
      },
    );

    app.put(
      '/resources/:resourceId',
      {
        schema: {
          tags: ['resources'],
          params: IdParams,
          body: ResourceUpdate,
          response: { 200: ResourceRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findResource(ctx.db, caller, request.params.resourceId);
        const { lockVersion, ...fields } = request.body;
        const values = await resourceColumns(ctx, row.account, fields, row.codeMode);
        await ctx.events.transaction(async (trx) => {
          await updateLocked(trx, 'resources', row.id, lockVersion, values, caller.memberId);
          if (values.switchOnCodeEncrypted !== undefined) {
            // Printed stickers with the old code now say "out of date" rather than "wrong code".
            const old = ctx.tokens.open(row.switchOnCodeEncrypted);
            await trx
              .insertInto('retired_switch_on_codes')
              .values({ resource: row.id, codeHash: retiredCodeHash(old), retiredAt: now() })
              .execute();
          }
          const updated = await trx
            .selectFrom('resources')
            .selectAll()
            .where('id', '=', row.id)
            .executeTakeFirstOrThrow();
          await emitResource(trx, 'resource_updated', updated);
        });
        await configChanged(row.id);
        return (await records(caller, [await findResource(ctx.db, caller, row.id)], []))[0];
      },
    );

    app.delete(
      '/resources/:resourceId',
      { schema: { tags: ['resources'], params: IdParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await findResource(ctx.db, caller, request.params.resourceId);
        await ctx.events.transaction(async (trx) => {
          const bridge = await findBridge(trx, row.id);
          // Events first: their details read the resource, which is gone after the delete.
          if (bridge) await emitBridge(trx, 'bridge_deleted', bridge, row);
          await emitResource(trx, 'resource_deleted', row);
          await trx.deleteFrom('resources').where('id', '=', row.id).execute();
        });
        // The bridge row goes with the resource (its key is revoked); its agent is cut off now.
        await ctx.bridges.forget(row.id);
        return reply.code(204).send();
      },
    );

    app.get(
      '/resources/:resourceId/bridge',
      {
        schema: {
          tags: ['bridges'],
          params: IdParams,
          response: { 200: z.union([BridgeRecord, z.array(z.never())]) },
        },
      },
      async (request) => {
        const row = await findResource(ctx.db, callerOf(request), request.params.resourceId);
        const bridge = await findBridge(ctx.db, row.id);
        return bridge ? bridgeRecord(bridge) : [];
      },
    );

    app.put(
      '/resources/:resourceId/bridge',
      {
        schema: {
          tags: ['bridges'],
          params: IdParams,
          body: BridgeUpdate.optional(),
          response: { 200: BridgeRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findResource(ctx.db, caller, request.params.resourceId);
        const body = request.body ?? {};
        const existing = await findBridge(ctx.db, row.id);
        if (!existing) {
          await ctx.events.transaction(async (trx) => {
            const created = await createBridge(trx, ctx.tokens, {
              resource: row.id,
              account: row.account,
              createdBy: caller.memberId,
              serialNumber: body.serialNumber,
              heartbeatInterval: body.heartbeatInterval,
            });
            await emitBridge(trx, 'bridge_created', created.row, row);
          });
        } else {
          const changes: Record<string, unknown> = {};
          if (body.serialNumber !== undefined) changes.serialNumber = body.serialNumber;
          if (body.heartbeatInterval !== undefined)
            changes.heartbeatInterval = heartbeatColumn(body.heartbeatInterval);
          if (Object.keys(changes).length) {
            await ctx.db
              .updateTable('bridges')
              .set({ ...changes, updatedAt: now() })
              .where('resource', '=', row.id)
              .execute();
            await configChanged(row.id);
          }
          if (body.rotateApiKey) {
            await rotateBridgeKey(ctx.db, ctx.tokens, row.id);
            ctx.bridges.disconnect(row.id);
          }
        }
        return bridgeRecord((await findBridge(ctx.db, row.id))!);
      },
    );

    app.delete(
      '/resources/:resourceId/bridge',
      { schema: { tags: ['bridges'], params: IdParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await findResource(ctx.db, caller, request.params.resourceId);
        await ctx.events.transaction(async (trx) => {
          const bridge = await findBridge(trx, row.id);
          if (!bridge) return;
          await trx.deleteFrom('bridges').where('resource', '=', row.id).execute();
          await emitBridge(trx, 'bridge_deleted', bridge, row);
        });
        await ctx.bridges.forget(row.id);
        return reply.code(204).send();
      },
    );

    // Shown to superusers and to the admin who created the bridge; everyone else gets 204 (DESIGN 4).
    app.get(
      '/resources/:resourceId/bridge/api-key',
      {
        schema: { tags: ['bridges'], params: IdParams, response: { 200: BridgeApiKey, 204: z.undefined() } },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const row = await findResource(ctx.db, caller, request.params.resourceId);
        const bridge = await findBridge(ctx.db, row.id);
        if (!bridge || !(caller.superuser || (isAdmin(caller) && bridge.createdBy === caller.memberId))) {
          return reply.code(204).send();
        }
        return { apiKey: ctx.tokens.open(bridge.apiKeyEncrypted) };
      },
    );
  };
}
