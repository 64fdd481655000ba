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
import { pagedNote } from '../http/openapi-doc.js';

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
  docs: {
    list: {
      summary: 'List resources (doors and machines)',
      description: `Filters: \`space\`, \`type\`, \`controlType\`, \`state\`; \`q\` searches the name; \`orderBy\` and \`order\` sort. \`embed=bridge\` adds each resource’s bridge. Members see resources visible to members; the switch-on code is shown to admins only. ${pagedNote}`,
    },
    get: {
      summary: 'Get a resource',
      description: 'With `lastUsed`; `embed=bridge` adds its bridge.',
    },
    create: {
      summary: 'Add a resource',
      description:
        'A door, machine or point of sale with its access and pricing rules. It gets a random switch-on code for its QR sticker. Add its bridge with PUT /resources/{resourceId}/bridge.',
      errors: { 422: 'The space or resource type does not exist in this account.' },
      example: {
        space: 1,
        name: 'Laser cutter',
        controlType: 'machine',
        requiresTraining: true,
        canBeBooked: true,
        pricePerTimeBusy: '0.50',
        pricePerTimeBusySeconds: 60,
      },
    },
    update: {
      summary: 'Change a resource',
      description:
        'Its bridge gets the new configuration at once. A new `switchOnCode` makes printed stickers out of date. Locking with a `lockReason` tells members why on the machine page (the access check shows it while the resource is locked).',
      errors: { 422: 'The space or resource type does not exist in this account.' },
      example: { lockVersion: 4, state: 'locked', lockReason: 'Lens being replaced until Friday' },
    },
    remove: {
      summary: 'Delete a resource',
      description:
        'Deletes the resource and its bridge; the bridge’s key stops working and its agent is disconnected.',
    },
  },
});

/** spec 4.8: resources, and their bridge and bridge API key. */
export function resourcesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, resources, async (app) => {
    registerBridgeRoutes(app, ctx, resources);
  });
}
