import { PackageCreate, PackageRecord, PackageUpdate } from '@makerspace/shared';
import { z } from 'zod';
import {
  createPackage,
  packageChanges,
  packageRecords,
  refusePackageDelete,
  visiblePackages,
} from '../billing/packages.js';
import { isAdmin } from '../kernel/caller.js';
import { collection } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { memberToday } from '../billing/package-billing.js';
import { pagedNote } from '../http/openapi-doc.js';

/** Who may use what follows from packages, their permissions and time rules. */
export const accessChanged = (ctx: HubServices, row: { account: number }) =>
  ctx.events.accessChanged(row.account);

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
      example: {
        name: 'Regular membership',
        recurringFee: '45.00',
        recurringFeePeriod: 'month',
        allowsBooking: true,
      },
    },
    update: {
      summary: 'Change a package',
      description: 'Only owners may change fees. Its time rules and state change who may use what at once.',
      example: { lockVersion: 3, description: 'Access to all machines on weekdays' },
    },
    remove: {
      summary: 'Delete a package',
      description: 'Only a package no member holds (archive it otherwise); only owners delete one with fees.',
      errors: { 422: 'Members hold this package.' },
    },
  },
});
