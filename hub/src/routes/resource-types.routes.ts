import { ResourceTypeCreate, ResourceTypeRecord, ResourceTypeUpdate } from '@makerspace/shared';
import { insertRow } from '../db/collection-rows.js';
import { collection, collectionRoutes } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { pagedNote } from '../http/openapi-doc.js';

/** spec 4.8: resource types (laser cutters, 3D printers, ...), which packages grant by type. */
export const resourceTypes = collection({
  table: 'resource_types',
  tag: 'resources',
  record: ResourceTypeRecord,
  records: (_ctx, rows) => rows,
  list: { search: 'name' },
  create: {
    body: ResourceTypeCreate,
    insert: (trx, { caller, body, at }) =>
      insertRow(
        trx,
        'resource_types',
        { account: caller.accountId, name: body.name },
        { at, by: caller.memberId },
      ),
  },
  update: { body: ResourceTypeUpdate },
  remove: {},
  docs: {
    list: {
      summary: 'List resource types',
      description: `The account’s resource types; \`q\` searches the name. ${pagedNote}`,
    },
    get: {
      summary: 'Get a resource type',
      description: 'One resource type of the caller’s account.',
    },
    create: {
      summary: 'Add a resource type',
      description:
        'A kind of resource (laser cutters, 3D printers) that package permissions can grant as a whole.',
      example: { name: '3D printer' },
    },
    update: {
      summary: 'Rename a resource type',
      example: { lockVersion: 1, name: 'Resin printer' },
    },
    remove: {
      summary: 'Delete a resource type',
      description: 'Its resources keep existing without a type.',
    },
  },
});

export const resourceTypesRoutes = (ctx: HubServices) => collectionRoutes(ctx, resourceTypes);
