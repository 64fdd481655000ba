import { BridgeApiKey, BridgeRecord, BridgeUpdate, type ResourceRecord } from '@makerspace/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callerOf } from '../http/auth.js';
import { type Collection, findIn } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { adminOnly, isAdmin } from '../kernel/caller.js';
import {
  bridgeRecord,
  createBridge,
  deleteBridge,
  emitBridge,
  findBridge,
  rotateBridgeKey,
  updateBridge,
} from '../resources/bridges.js';
import { ResourceParams } from '../http/params.js';

const tags = ['bridges'];

/** spec 4.8: a resource's bridge (the agent's record) and its API key, beside the resources collection. */
export function registerBridgeRoutes(
  fastify: FastifyInstance,
  ctx: HubServices,
  resources: Collection<'resources', ResourceRecord>,
): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const resourceOf = (request: FastifyRequest, id: number) =>
    findIn(resources, ctx, callerOf(request), {}, id);
  /** The resource for a bridge write: admins of its account (others: 404 if they cannot see it, else 403). */
  const resourceToManage = async (request: FastifyRequest, id: number) => {
    const row = await resourceOf(request, id);
    return { row, caller: adminOnly(callerOf(request)), at: ctx.clock.now().toISOString() };
  };

  memberRoute(
    app,
    'get',
    '/resources/:resourceId/bridge',
    {
      tags,
      summary: 'Get a resource’s bridge',
      description:
        'The bridge record (serial number, heartbeat interval, online state), or `[]` when the resource has no bridge.',
      params: ResourceParams,
      response: { 200: z.union([BridgeRecord, z.array(z.never())]) },
    },
    async (request) => {
      const bridge = await findBridge(ctx.db, (await resourceOf(request, request.params.resourceId)).id);
      return bridge ? bridgeRecord(bridge) : [];
    },
  );

  app.put(
    '/resources/:resourceId/bridge',
    {
      schema: {
        tags,
        summary: 'Add or change a resource’s bridge',
        description:
          'Creates the bridge (with a new bridge API key) when there is none, else changes it. `rotateApiKey: true` issues a new key and disconnects the agent on the old one.',
        admins: true,
        example: { serialNumber: 'PI-4B-0042', heartbeatInterval: 60 },
        params: ResourceParams,
        body: BridgeUpdate.optional(),
        response: { 200: BridgeRecord },
      },
    },
    async (request) => {
      const { row, caller, at } = await resourceToManage(request, request.params.resourceId);
      const { rotateApiKey, ...changes } = request.body ?? {};
      if (!(await findBridge(ctx.db, row.id))) {
        await ctx.events.transaction(async (trx) => {
          const created = await createBridge(
            trx,
            ctx.tokens,
            { resource: row.id, account: row.account, createdBy: caller.memberId, ...changes },
            at,
          );
          await emitBridge(trx, 'bridge_created', created.row, row);
        });
      } else {
        if (changes.serialNumber !== undefined || changes.heartbeatInterval !== undefined) {
          await updateBridge(ctx.db, row.id, changes, at);
          await ctx.bridges.publishConfig(row.id);
        }
        if (rotateApiKey) {
          await rotateBridgeKey(ctx.db, ctx.tokens, row.id, at);
          ctx.bridges.disconnect(row.id);
        }
      }
      return bridgeRecord((await findBridge(ctx.db, row.id))!);
    },
  );

  app.delete(
    '/resources/:resourceId/bridge',
    {
      schema: {
        tags,
        summary: 'Remove a resource’s bridge',
        description: 'The bridge key stops working and its agent is disconnected. Answers 204.',
        admins: true,
        params: ResourceParams,
      },
    },
    async (request, reply) => {
      const { row } = await resourceToManage(request, request.params.resourceId);
      await ctx.events.transaction(async (trx) => {
        const bridge = await deleteBridge(trx, row.id);
        if (bridge) await emitBridge(trx, 'bridge_deleted', bridge, row);
      });
      await ctx.bridges.forget(row.id);
      return reply.code(204).send();
    },
  );

  // Shown to superusers and to the admin who created the bridge; everyone else gets 204 (DESIGN 4).
  app.get(
    '/resources/:resourceId/bridge/api-key',
    {
      schema: {
        tags,
        summary: 'Read a bridge’s API key',
        description:
          'Shown to superusers and to the admin who created the bridge; everyone else gets 204 with an empty body.',
        params: ResourceParams,
        response: { 200: BridgeApiKey, 204: z.undefined() },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const bridge = await findBridge(ctx.db, (await resourceOf(request, request.params.resourceId)).id);
      if (!bridge || !(caller.superuser || (isAdmin(caller) && bridge.createdBy === caller.memberId))) {
        return reply.code(204).send();
      }
      return { apiKey: ctx.tokens.open(bridge.apiKeyEncrypted) };
    },
  );
}
