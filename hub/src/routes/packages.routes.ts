import {
  PackageCreate,
  PackageCreditRecord,
  PackageCreditUpdate,
  PackagePermissionCreate,
  PackagePermissionRecord,
  PackagePermissionUpdate,
  PackageRecord,
  PackageUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emitCreditsDeleted } from '../billing/member-credits.js';
import {
  createPackage,
  createPermission,
  creditChanges,
  creditRecord,
  packageChanges,
  packageRecords,
  permissionChanges,
  permissionRecord,
  refusePackageDelete,
  visiblePackages,
} from '../billing/packages.js';
import { insertRow } from '../db/collection-rows.js';
import { isAdmin } from '../identity/caller.js';
import type { Db } from '../db/crud.js';
import { collection, findIn, registerCollection } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { memberPackagePreviewRoute, memberPackages } from './member-packages.routes.js';
import { memberToday } from '../billing/package-billing.js';
import { rowsOfPackage } from '../billing/packages.repository.js';

// Who may use what follows from packages, their permissions and time rules.
const accessChanged = (ctx: HubServices, row: { account: number }) => ctx.events.accessChanged(row.account);

/** spec 4.11: packages (what members get for what they pay). */
export const packages = collection({
  table: 'packages',
  record: PackageRecord,
  visible: visiblePackages,
  embeds: ['memberCount'],
  // How many hold a package is the admins' figure: other members' embed is left out.
  records: async (ctx, rows, caller, embed) =>
    isAdmin(caller)
      ? packageRecords(ctx.db, rows, embed, await memberToday(ctx.db, caller.memberId, ctx.clock.now()))
      : packageRecords(ctx.db, rows, [], ''),
  list: {
    search: 'name',
    query: { state: z.enum(['active', 'archived']).optional() },
    where: (base, query) => (query.state ? base.where('state', '=', query.state as string) : base),
  },
  create: {
    body: PackageCreate,
    insert: (trx, { caller, body, at }) => createPackage(trx, caller, body, at),
  },
  update: { body: PackageUpdate, columns: (body, row, { caller }) => packageChanges(caller, row, body) },
  remove: { before: (trx, row, _ctx, caller) => refusePackageDelete(trx, caller, row) },
  committed: (ctx, row, write) => write !== 'create' && accessChanged(ctx, row),
});

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
});

export function packagesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    for (const c of [packages, packageCredits, packagePermissions, memberPackages])
      registerCollection(app, ctx, c as never);
    await memberPackagePreviewRoute(ctx)(app, {});
  };
}
