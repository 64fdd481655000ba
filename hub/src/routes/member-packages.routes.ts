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
import { requireAdmin } from '../http/auth.js';
import { MemberParams } from '../http/params.js';
import type { HubServices } from '../http/services.js';
import { emitMemberPackage, memberPackageChanges, memberPackageRecords } from '../billing/packages.js';
import { collection, underMember } from '../http/collection.js';
import { findMember } from '../identity/members.js';

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
});

/** The charges and credits giving a member a package would create, before it is given. */
export function memberPackagePreviewRoute(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/members/:memberId/packages/preview',
      {
        schema: {
          tags: ['members'],
          params: MemberParams,
          body: MemberPackageCreate,
          response: { 200: MemberPackagePreview },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
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
