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
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/crud.js';
import type { Database } from '../db/schema.js';
import { collection, findIn, registerCollection } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { memberPackagePreviewRoute, memberPackages } from './member-packages.routes.js';
import { memberToday } from '../billing/package-billing.js';
import { lockedNote, pagedNote } from '../http/openapi-doc.js';

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
  docs: {
    list: {
      summary: 'List packages',
      description: `\`state\` filters; \`q\` searches the name. \`embed=memberCount\` adds \`_embedded.memberCount\`: how many members hold the package today (member packages started and not ended, in the caller’s space’s time zone); for admins and owners only, other members’ embed is left out. ${pagedNote}`,
    },
    get: {
      summary: 'Get a package',
      description: 'One package of the caller’s account.',
    },
    create: {
      summary: 'Add a package',
      description:
        'What members get (permissions, credits) for what they pay (setup and recurring fees). Only owners may set fees.',
      admins: true,
      example: {
        name: 'Regular membership',
        recurringFee: '45.00',
        recurringFeePeriod: 'month',
        allowsBooking: true,
      },
    },
    update: {
      summary: 'Change a package',
      description: `${lockedNote} Only owners may change fees. Its time rules and state change who may use what at once.`,
      admins: true,
      example: { lockVersion: 3, description: 'Access to all machines on weekdays' },
    },
    remove: {
      summary: 'Delete a package',
      description:
        'Only a package no member holds (archive it otherwise); only owners delete one with fees. Answers 204.',
      admins: true,
      errors: { 422: 'Members hold this package.' },
    },
  },
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
    return (db.selectFrom(table) as SelectQueryBuilder<any, any, object>).where(
      `${table}.package`,
      '=',
      pkg.id as never,
    ) as unknown as SelectQueryBuilder<Database, T, object>;
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
      admins: true,
    },
    update: {
      summary: 'Change a package credit',
      description: `${lockedNote} Only owners may change the amount.`,
      admins: true,
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
      description: 'Members’ credits granted by it go with it. Answers 204.',
      admins: true,
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
      admins: true,
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
      description: `${lockedNote} Only owners may change discounts.`,
      admins: true,
      errors: {
        422: 'The resource or resource type is missing or unknown, or a custom time table has no times.',
      },
      example: { lockVersion: 1, timeType: 'openingHours' },
    },
    remove: {
      summary: 'Delete a package permission',
      description: 'Answers 204.',
      admins: true,
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
