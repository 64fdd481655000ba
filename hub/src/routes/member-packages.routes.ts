import {
  MemberPackageCreate,
  MemberPackagePreview,
  MemberPackageRecord,
  MemberPackageUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { emitCreditsDeleted } from '../billing/member-credits.js';
import {
  createMemberPackage,
  memberPackageChanged,
  previewMemberPackage,
} from '../billing/package-billing.js';
import { MemberParams } from '../http/params.js';
import type { HubServices } from '../http/services.js';
import { adminRoute } from '../http/route.js';
import { emitMemberPackage, memberPackageChanges, memberPackageRecords } from '../billing/packages.js';
import { collection, underMember } from '../http/collection.js';
import { findMember } from '../identity/members.js';
import { pagedNote } from '../http/openapi-doc.js';

/** Why giving a member a package (or its preview) answers 422. */
const packageRefused = 'The package does not exist or is archived, or `untilDate` is before `fromDate`.';

/** Fabman's paths for the packages a member holds. */
export const memberPackages = collection({
  ...underMember('member_packages', 'packages'),
  id: 'memberPackageId',
  record: MemberPackageRecord,
  embeds: ['package'],
  records: (ctx, rows, _caller, embed) => memberPackageRecords(ctx.db, rows, embed),
  list: {
    order: [
      ['fromDate', 'asc'],
      ['id', 'asc'],
    ],
  },
  create: {
    body: MemberPackageCreate,
    insert: async (trx, { ctx, caller, body, params }) =>
      createMemberPackage(trx, {
        member: await findMember(trx, caller, params.memberId),
        caller,
        body,
        at: ctx.clock.now(),
      }),
  },
  update: {
    body: MemberPackageUpdate,
    columns: (body, row) => memberPackageChanges(row, body),
    written: (trx, _before, after, ctx) => memberPackageChanged(trx, after, ctx.clock.now()),
  },
  remove: {
    before: async (trx, row) => {
      await emitMemberPackage(trx, 'memberPackage_deleted', row);
      // The member's credits from this package go with it.
      await emitCreditsDeleted(trx, 'memberPackage', row.id);
    },
  },
  // Fees and credits were billed in the write: wake the webhook worker for their events.
  committed: (ctx) => ctx.events.committed(),
  docs: {
    list: {
      summary: 'List the packages a member holds',
      description: `\`embed=package\` adds the package. Members see their own. ${pagedNote}`,
    },
    get: {
      summary: 'Get a package a member holds',
      description: '`embed=package` adds the package.',
    },
    create: {
      summary: 'Give a member a package',
      description:
        'From `fromDate` (default today) until `untilDate`. The setup fee, the first period’s fee and the first credits are charged at once.',
      errors: { 422: packageRefused },
      example: { package: 2, fromDate: '2026-12-01', notes: 'Student rate' },
    },
    update: {
      summary: 'Change a member’s package',
      description: 'Set `untilDate` to end it.',
      errors: { 422: '`untilDate` is before `fromDate`.' },
      example: { lockVersion: 1, untilDate: '2027-06-30' },
    },
    remove: {
      summary: 'Take a package away from a member',
      description: 'The member’s credits from it go with it.',
    },
  },
});

/** The charges and credits giving a member a package would create, before it is given. */
export function memberPackagePreviewRoute(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    adminRoute(
      app,
      'post',
      '/members/:memberId/packages/preview',
      {
        tags: ['members'],
        summary: 'Preview giving a member a package: its charges and credits',
        description:
          'Takes the body of `POST /members/{memberId}/packages` and answers what that call would charge and grant (the setup fee, the first period’s fee, pro rata when the package prorates, and the first credits), computed by billing itself in a transaction that is then rolled back: nothing is written. A package starting later than today shows what its billing will charge on `fromDate`.',
        errors: { 422: packageRefused },
        example: { package: 2, fromDate: '2026-12-10' },
        params: MemberParams,
        body: MemberPackageCreate,
        response: { 200: MemberPackagePreview },
      },
      async (request, caller) => {
        const at = ctx.clock.now();
        return previewMemberPackage((fn) => ctx.events.transaction(fn), {
          member: await findMember(ctx.db, caller, request.params.memberId),
          caller,
          body: request.body,
          at,
        });
      },
    );
  };
}
