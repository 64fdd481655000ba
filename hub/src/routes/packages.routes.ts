import {
  PackageCreditRecord,
  PackageCreditUpdate,
  PackagePermissionCreate,
  PackagePermissionRecord,
  PackagePermissionUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { emitCreditsDeleted } from '../billing/member-credits.js';
import {
  createPermission,
  creditChanges,
  creditRecord,
  permissionChanges,
  permissionRecord,
  type visiblePackages,
} from '../billing/packages.js';
import { insertRow } from '../db/collection-rows.js';
import type { Db } from '../db/crud.js';
import { collection, findIn, registerCollection } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { memberPackagePreviewRoute, memberPackages } from './member-packages.routes.js';
import { pagedNote } from '../http/openapi-doc.js';
import { rowsOfPackage } from '../billing/packages.repository.js';
import { accessChanged, packages } from './packages.collection.js';

/** The package a credit or permission path names, as the caller sees it (404 otherwise). */
const packageOf = (
  ctx: HubServices,
  caller: Parameters<typeof visiblePackages>[1],
  packageId: number,
  db: Db,
) => findIn(packages, ctx, caller, {}, packageId, db);

/** The rows of a package's credits or permissions, once the caller sees the package. */
const ofPackage =
  <T extends 'package_credits' | 'package_permissions'>(table: T) =>
  async (
    ctx: HubServices,
    caller: Parameters<typeof visiblePackages>[1],
    params: Record<string, number>,
    db: Db,
  ) => {
    const pkg = await packageOf(ctx, caller, params.packageId, db);
    return rowsOfPackage(db, table, pkg.id);
  };

/** The table, path (`/packages/:packageId/<segment>`) and scope (`ofPackage`) of a package's sub-collection. */
const underPackage = <T extends 'package_credits' | 'package_permissions'>(table: T, segment: string) => ({
  table,
  path: `/packages/:packageId/${segment}`,
  scope: ofPackage(table),
});

/** spec 4.11: a package's credits (amounts members get each period). */
export const packageCredits = collection({
  ...underPackage('package_credits', 'credits'),
  record: PackageCreditRecord,
  toRecord: creditRecord,
  list: {},
  // No body: a default credit (global, 0.00 a month, any resource) that the client then edits.
  create: {
    insert: async (trx, { ctx, caller, params, at }) => {
      const pkg = await packageOf(ctx, caller, params.packageId, trx);
      return insertRow(
        trx,
        'package_credits',
        { account: pkg.account, package: pkg.id },
        { at, by: caller.memberId },
      );
    },
  },
  update: { body: PackageCreditUpdate, columns: (body, row, { caller }) => creditChanges(caller, row, body) },
  // Members' credits granted by this package credit go with it.
  remove: { before: (trx, row) => emitCreditsDeleted(trx, 'packageCredit', row.id) },
  docs: {
    list: {
      summary: 'List a package’s credits',
      description: pagedNote,
    },
    get: {
      summary: 'Get a package credit',
      description: 'The amount members of the package get each period, and for what.',
    },
    create: {
      summary: 'Add a credit to a package',
      description:
        'Takes no body: creates a default credit (global, 0.00 a month, any resource) to edit with PUT.',
    },
    update: {
      summary: 'Change a package credit',
      description: 'Only owners may change the amount.',
      example: {
        lockVersion: 1,
        scope: 'usage',
        amount: '20.00',
        period: 'month',
        resources: [{ type: 'resource', resource: 7 }],
      },
    },
    remove: {
      summary: 'Delete a package credit',
      description: 'Members’ credits granted by it go with it.',
    },
  },
});

/** spec 4.11: a package's permissions (which resources, at which times, with which discounts). */
export const packagePermissions = collection({
  ...underPackage('package_permissions', 'permissions'),
  record: PackagePermissionRecord,
  toRecord: permissionRecord,
  list: {},
  create: {
    body: PackagePermissionCreate,
    insert: async (trx, { ctx, caller, body, params, at }) =>
      createPermission(trx, caller, await packageOf(ctx, caller, params.packageId, trx), body, at),
  },
  update: {
    body: PackagePermissionUpdate,
    columns: (body, row, { caller, trx }) => permissionChanges(trx, caller, row, body),
  },
  remove: {},
  committed: accessChanged,
  docs: {
    list: {
      summary: 'List a package’s permissions',
      description: pagedNote,
    },
    get: {
      summary: 'Get a package permission',
      description: 'One permission of the package.',
    },
    create: {
      summary: 'Add a permission to a package',
      description:
        'Which resources the package allows (everything, a resource type, one resource) and when. Only owners may set discounts.',
      errors: {
        422: 'The resource or resource type is missing or unknown, or a custom time table has no times.',
      },
      example: {
        type: 'resourceType',
        resourceType: 2,
        timeType: 'custom',
        times: [{ dayOfWeek: 1, fromTime: '08:00', untilTime: '20:00' }],
        usageFeeDiscountPercent: '50',
      },
    },
    update: {
      summary: 'Change a package permission',
      description: 'Only owners may change discounts.',
      errors: {
        422: 'The resource or resource type is missing or unknown, or a custom time table has no times.',
      },
      example: { lockVersion: 1, timeType: 'openingHours' },
    },
    remove: {
      summary: 'Delete a package permission',
    },
  },
});

export function packagesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    for (const c of [packages, packageCredits, packagePermissions, memberPackages])
      registerCollection(app, ctx, c as never);
    await memberPackagePreviewRoute(ctx)(app, {});
  };
}
