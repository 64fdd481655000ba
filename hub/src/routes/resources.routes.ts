import { ControlType, Id, ResourceCreate, ResourceRecord, ResourceUpdate } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { collection, collectionRoutes } from '../http/collection.js';
import { orderParam } from '../http/list.js';
import type { HubServices } from '../http/services.js';
import {
  createResource,
  resourceChanges,
  resourceRecords,
  resourceRemoved,
  resourceUpdated,
} from '../resources/resource-changes.js';
import { visibleResources } from '../resources/resources.js';
import { registerBridgeRoutes } from './resource-bridge.routes.js';

/** spec 4.8: resources. Members see those visible to members; admins every one of the account. */
export const resources = collection({
  table: 'resources',
  record: ResourceRecord,
  embeds: ['bridge'],
  visible: visibleResources,
  records: (ctx, rows, caller, embed) => resourceRecords(ctx, rows, caller, embed),
  list: {
    search: 'name',
    equals: {
      space: Id.optional(),
      type: Id.optional(),
      controlType: ControlType.optional(),
      state: z.enum(['active', 'locked']).optional(),
    },
    query: { orderBy: z.enum(['id', 'name', 'createdAt', 'updatedAt']).default('id'), order: orderParam },
    order: (query) => [
      [query.orderBy as string, query.order as 'asc' | 'desc'],
      ['id', query.order as 'asc' | 'desc'],
    ],
  },
  create: {
    body: ResourceCreate,
    insert: (trx, { ctx, caller, body, at }) => createResource(trx, ctx, caller, body, at),
  },
  update: {
    body: ResourceUpdate,
    note: 'Locking (`state: locked`) or unlocking writes a `resourceDisabled` or `resourceEnabled` resource log.',
    columns: (body, row, { ctx, trx }) => resourceChanges(trx, ctx, row, body),
    written: (trx, before, after, ctx, caller) => resourceUpdated(trx, ctx, caller, before, after),
  },
  remove: {
    note: 'Its bridge goes with it (the agent is cut off); its resource logs stay.',
    before: (trx, row) => resourceRemoved(trx, row),
  },
  // The agent works from the resource's config; a deleted resource's bridge is cut off.
  committed: (ctx, row, write) =>
    write === 'update'
      ? ctx.bridges.publishConfig(row.id)
      : write === 'remove'
        ? ctx.bridges.forget(row.id)
        : undefined,
});

/** spec 4.8: resources, and their bridge and bridge API key. */
export function resourcesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, resources, async (app) => {
    registerBridgeRoutes(app, ctx, resources);
  });
}
