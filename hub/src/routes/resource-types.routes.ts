import { ResourceTypeCreate, ResourceTypeRecord, ResourceTypeUpdate } from '@makerspace/shared';
import { insertRow } from '../db/collection-rows.js';
import { collection, collectionRoutes } from '../http/collection.js';
import type { HubServices } from '../http/services.js';

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
});

export const resourceTypesRoutes = (ctx: HubServices) => collectionRoutes(ctx, resourceTypes);
