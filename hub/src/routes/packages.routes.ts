import {
  MemberPackageCreate,
  MemberPackageRecord,
  MemberPackageUpdate,
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
import { formatMoney, formatPercent, parseMoney } from '../billing/money.js';
import { billMemberPackage, memberToday } from '../billing/package-billing.js';
import {
  checkDates,
  checkPermissionTarget,
  createPackage,
  creditRecord,
  deletePackage,
  findCredit,
  findMemberPackage,
  findPackage,
  findPermission,
  memberPackageRecord,
  packageRecord,
  permissionColumns,
  permissionRecord,
  updateCredit,
  updatePackage,
  visiblePackages,
} from '../billing/packages.js';
import type { HubContext } from '../context.js';
import { emitCreditsDeleted, emitMemberPackage } from '../webhooks/emitters.js';
import { now, updateLocked } from '../db/crud.js';
import { type Caller, callerOf, requireAdmin } from '../http/auth.js';
import { forbidden, unprocessable } from '../http/errors.js';
import { embedParam, likePattern, pageParams, queryPage, sendPage } from '../http/list.js';
import { findMember } from '../identity/members.js';

const PackageParams = z.object({ packageId: z.coerce.number().int().positive() });
const CreditParams = PackageParams.extend({ creditId: z.coerce.number().int().positive() });
const PermissionParams = PackageParams.extend({ permissionId: z.coerce.number().int().positive() });
const MemberParams = z.object({ memberId: z.coerce.number().int().positive() });
const MemberPackageParams = MemberParams.extend({ memberPackageId: z.coerce.number().int().positive() });
const PackageList = z.object({ ...pageParams, state: z.enum(['active', 'archived']).optional() });
const SubList = z.object({ limit: pageParams.limit, offset: pageParams.offset });
const MemberPackageList = z.object({
  limit: pageParams.limit,
  offset: pageParams.offset,
  embed: embedParam(['package']),
});

/**
 * Money fields of credits and permissions that only owners may change, like a package's fees
 * (what members get for what they pay). Others sending a different value get 403.
 */
function checkOwnerOnlyValues(
  caller: Caller,
  changes: { field: string; from: string; to: string | undefined }[],
) {
  if (caller.superuser || caller.privileges === 'owner') return;
  const changed = changes.filter((c) => c.to !== undefined && c.to !== c.from).map((c) => c.field);
  if (changed.length > 0)
    throw forbidden(`Only owners may set ${changed.join(', ')}`, { ownerOnlyFields: changed });
}
const money = (v: string | undefined) => (v === undefined ? undefined : formatMoney(parseMoney(v)));
const pct = (v: string | undefined) => (v === undefined ? undefined : formatPercent(parseMoney(v)));

/** spec: packages with their credits and permissions, and the packages members hold. */
export function packagesRoutes(ctx: HubContext): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['packages'];

    app.post(
      '/packages',
      { schema: { tags, body: PackageCreate, response: { 201: PackageRecord } } },
      async (request, reply) => {
        const row = await createPackage(ctx.db, requireAdmin(request), request.body);
        return reply.code(201).send(packageRecord(row));
      },
    );

    app.get(
      '/packages',
      { schema: { tags, querystring: PackageList, response: { 200: z.array(PackageRecord) } } },
      async (request, reply) => {
        const { limit, offset, q, state } = request.query;
        let base = visiblePackages(ctx.db, callerOf(request));
        if (state) base = base.where('state', '=', state);
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('name')]), 'like', likePattern(q)));
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id'));
        return sendPage(request, reply, page, page.rows.map(packageRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/packages/:packageId',
      { schema: { tags, params: PackageParams, response: { 200: PackageRecord } } },
      async (request) =>
        packageRecord(await findPackage(ctx.db, callerOf(request), request.params.packageId)),
    );

    app.put(
      '/packages/:packageId',
      { schema: { tags, params: PackageParams, body: PackageUpdate, response: { 200: PackageRecord } } },
      async (request) => {
        const row = await updatePackage(
          ctx.db,
          requireAdmin(request),
          request.params.packageId,
          request.body,
        );
        // Time rules and state are part of who may use what.
        ctx.events.accessChanged(row.account);
        return packageRecord(row);
      },
    );

    app.delete(
      '/packages/:packageId',
      { schema: { tags, params: PackageParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const pkg = await findPackage(ctx.db, caller, request.params.packageId);
        await deletePackage(ctx.db, caller, request.params.packageId);
        ctx.events.accessChanged(pkg.account);
        return reply.code(204).send();
      },
    );

    // ---- credits ----
    app.post(
      '/packages/:packageId/credits',
      { schema: { tags, params: PackageParams, response: { 201: PackageCreditRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const pkg = await findPackage(ctx.db, caller, request.params.packageId);
        const at = now();
        // No body: a default credit (global, 0.00 a month, any resource) that the client then edits.
        const row = await ctx.db
          .insertInto('package_credits')
          .values({
            account: pkg.account,
            package: pkg.id,
            createdAt: at,
            updatedAt: at,
            updatedBy: caller.memberId,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return reply.code(201).send(creditRecord(row));
      },
    );

    app.get(
      '/packages/:packageId/credits',
      {
        schema: {
          tags,
          params: PackageParams,
          querystring: SubList,
          response: { 200: z.array(PackageCreditRecord) },
        },
      },
      async (request, reply) => {
        const pkg = await findPackage(ctx.db, callerOf(request), request.params.packageId);
        const { limit, offset } = request.query;
        const base = ctx.db.selectFrom('package_credits').where('package', '=', pkg.id);
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id'));
        return sendPage(request, reply, page, page.rows.map(creditRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/packages/:packageId/credits/:creditId',
      { schema: { tags, params: CreditParams, response: { 200: PackageCreditRecord } } },
      async (request) => {
        const pkg = await findPackage(ctx.db, callerOf(request), request.params.packageId);
        return creditRecord(await findCredit(ctx.db, pkg.id, request.params.creditId));
      },
    );

    app.put(
      '/packages/:packageId/credits/:creditId',
      {
        schema: {
          tags,
          params: CreditParams,
          body: PackageCreditUpdate,
          response: { 200: PackageCreditRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const pkg = await findPackage(ctx.db, caller, request.params.packageId);
        const row = await findCredit(ctx.db, pkg.id, request.params.creditId);
        checkOwnerOnlyValues(caller, [{ field: 'amount', from: row.amount, to: money(request.body.amount) }]);
        return creditRecord(await updateCredit(ctx.db, caller, row, request.body));
      },
    );

    app.delete(
      '/packages/:packageId/credits/:creditId',
      { schema: { tags, params: CreditParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const pkg = await findPackage(ctx.db, caller, request.params.packageId);
        const row = await findCredit(ctx.db, pkg.id, request.params.creditId);
        await ctx.events.transaction(async (trx) => {
          // Members' credits granted by this package credit go with it.
          await emitCreditsDeleted(trx, 'packageCredit', row.id);
          await trx.deleteFrom('package_credits').where('id', '=', row.id).execute();
        });
        return reply.code(204).send();
      },
    );

    // ---- permissions ----
    app.post(
      '/packages/:packageId/permissions',
      {
        schema: {
          tags,
          params: PackageParams,
          body: PackagePermissionCreate,
          response: { 201: PackagePermissionRecord },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const pkg = await findPackage(ctx.db, caller, request.params.packageId);
        const body = request.body;
        checkOwnerOnlyValues(caller, [
          { field: 'usageFeeDiscountPercent', from: '0', to: pct(body.usageFeeDiscountPercent) },
          { field: 'bookingFeeDiscountPercent', from: '0', to: pct(body.bookingFeeDiscountPercent) },
        ]);
        await checkPermissionTarget(ctx.db, pkg.account, body);
        const at = now();
        const row = await ctx.db
          .insertInto('package_permissions')
          .values({
            ...(permissionColumns(body) as any),
            account: pkg.account,
            package: pkg.id,
            createdAt: at,
            updatedAt: at,
            updatedBy: caller.memberId,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        ctx.events.accessChanged(pkg.account);
        return reply.code(201).send(permissionRecord(row));
      },
    );

    app.get(
      '/packages/:packageId/permissions',
      {
        schema: {
          tags,
          params: PackageParams,
          querystring: SubList,
          response: { 200: z.array(PackagePermissionRecord) },
        },
      },
      async (request, reply) => {
        const pkg = await findPackage(ctx.db, callerOf(request), request.params.packageId);
        const { limit, offset } = request.query;
        const base = ctx.db.selectFrom('package_permissions').where('package', '=', pkg.id);
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id'));
        return sendPage(request, reply, page, page.rows.map(permissionRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/packages/:packageId/permissions/:permissionId',
      { schema: { tags, params: PermissionParams, response: { 200: PackagePermissionRecord } } },
      async (request) => {
        const pkg = await findPackage(ctx.db, callerOf(request), request.params.packageId);
        return permissionRecord(await findPermission(ctx.db, pkg.id, request.params.permissionId));
      },
    );

    app.put(
      '/packages/:packageId/permissions/:permissionId',
      {
        schema: {
          tags,
          params: PermissionParams,
          body: PackagePermissionUpdate,
          response: { 200: PackagePermissionRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const pkg = await findPackage(ctx.db, caller, request.params.packageId);
        const row = await findPermission(ctx.db, pkg.id, request.params.permissionId);
        const { lockVersion, ...fields } = request.body;
        checkOwnerOnlyValues(caller, [
          {
            field: 'usageFeeDiscountPercent',
            from: row.usageFeeDiscountPercent,
            to: pct(fields.usageFeeDiscountPercent),
          },
          {
            field: 'bookingFeeDiscountPercent',
            from: row.bookingFeeDiscountPercent,
            to: pct(fields.bookingFeeDiscountPercent),
          },
        ]);
        const merged = {
          type: fields.type ?? row.type,
          resourceType: fields.resourceType !== undefined ? fields.resourceType : row.resourceType,
          resource: fields.resource !== undefined ? fields.resource : row.resource,
          timeType: fields.timeType ?? row.timeType,
          times: fields.times ?? JSON.parse(row.times),
        };
        await checkPermissionTarget(ctx.db, pkg.account, merged);
        const columns = permissionColumns({ ...fields, ...merged, times: fields.times });
        await updateLocked(ctx.db, 'package_permissions', row.id, lockVersion, columns, caller.memberId);
        ctx.events.accessChanged(pkg.account);
        return permissionRecord(await findPermission(ctx.db, pkg.id, row.id));
      },
    );

    app.delete(
      '/packages/:packageId/permissions/:permissionId',
      { schema: { tags, params: PermissionParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const pkg = await findPackage(ctx.db, caller, request.params.packageId);
        const row = await findPermission(ctx.db, pkg.id, request.params.permissionId);
        await ctx.db.deleteFrom('package_permissions').where('id', '=', row.id).execute();
        ctx.events.accessChanged(pkg.account);
        return reply.code(204).send();
      },
    );

    // ---- member packages (Fabman's paths) ----
    const memberTags = ['members'];
    const withPackage = async (row: Parameters<typeof memberPackageRecord>[0], embed: readonly string[]) => {
      const record = memberPackageRecord(row);
      if (!embed.includes('package')) return record;
      const pkg = await ctx.db
        .selectFrom('packages')
        .selectAll()
        .where('id', '=', row.package)
        .executeTakeFirst();
      return { ...record, _embedded: { package: pkg ? packageRecord(pkg) : null } };
    };

    app.get(
      '/members/:memberId/packages',
      {
        schema: {
          tags: memberTags,
          params: MemberParams,
          querystring: MemberPackageList,
          response: { 200: z.array(MemberPackageRecord) },
        },
      },
      async (request, reply) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        const { limit, offset, embed } = request.query;
        const base = ctx.db.selectFrom('member_packages').where('member', '=', member.id);
        const page = await queryPage(base, { limit, offset }, (b) =>
          b.selectAll().orderBy('fromDate').orderBy('id'),
        );
        return sendPage(
          request,
          reply,
          page,
          await Promise.all(page.rows.map((r) => withPackage(r, embed))),
          ctx.publicUrl,
        );
      },
    );

    app.post(
      '/members/:memberId/packages',
      {
        schema: {
          tags: memberTags,
          params: MemberParams,
          body: MemberPackageCreate,
          response: { 201: MemberPackageRecord },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        const pkg = await ctx.db
          .selectFrom('packages')
          .selectAll()
          .where('id', '=', request.body.package)
          .where('account', '=', member.account)
          .executeTakeFirst();
        if (!pkg)
          throw unprocessable(`Package ${request.body.package} does not exist`, { package: 'unknown' });
        if (pkg.state !== 'active')
          throw unprocessable('This package is archived', { packageArchived: true });
        const at = ctx.clock.now();
        const today = await memberToday(ctx.db, member.id, at);
        const fromDate = request.body.fromDate ?? today;
        checkDates(fromDate, request.body.untilDate);
        const row = await ctx.events.transaction(async (trx) => {
          const stamp = now();
          const mp = await trx
            .insertInto('member_packages')
            .values({
              account: member.account,
              member: member.id,
              package: pkg.id,
              fromDate,
              untilDate: request.body.untilDate ?? null,
              notes: request.body.notes ?? null,
              createdAt: stamp,
              updatedAt: stamp,
              updatedBy: caller.memberId,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          await emitMemberPackage(trx, 'memberPackage_created', mp);
          // Setup fee, the first period's fee and the first credits right away; the job does the rest.
          await billMemberPackage(trx, mp, today);
          return mp;
        });
        ctx.events.committed();
        return reply.code(201).send(memberPackageRecord(row));
      },
    );

    app.get(
      '/members/:memberId/packages/:memberPackageId',
      {
        schema: {
          tags: memberTags,
          params: MemberPackageParams,
          querystring: z.object({ embed: embedParam(['package']) }),
          response: { 200: MemberPackageRecord },
        },
      },
      async (request) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        return withPackage(
          await findMemberPackage(ctx.db, member.id, request.params.memberPackageId),
          request.query.embed,
        );
      },
    );

    app.put(
      '/members/:memberId/packages/:memberPackageId',
      {
        schema: {
          tags: memberTags,
          params: MemberPackageParams,
          body: MemberPackageUpdate,
          response: { 200: MemberPackageRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        const row = await findMemberPackage(ctx.db, member.id, request.params.memberPackageId);
        const { lockVersion, fromDate, untilDate, notes } = request.body;
        checkDates(fromDate ?? row.fromDate, untilDate === undefined ? row.untilDate : untilDate);
        const today = await memberToday(ctx.db, member.id, ctx.clock.now());
        await ctx.events.transaction(async (trx) => {
          await updateLocked(
            trx,
            'member_packages',
            row.id,
            lockVersion,
            Object.fromEntries(
              Object.entries({ fromDate, untilDate, notes }).filter(([, v]) => v !== undefined),
            ),
            caller.memberId,
          );
          const updated = await findMemberPackage(trx, member.id, row.id);
          await emitMemberPackage(trx, 'memberPackage_updated', updated);
          await billMemberPackage(trx, updated, today);
        });
        ctx.events.committed();
        return memberPackageRecord(await findMemberPackage(ctx.db, member.id, row.id));
      },
    );

    app.delete(
      '/members/:memberId/packages/:memberPackageId',
      { schema: { tags: memberTags, params: MemberPackageParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        const row = await findMemberPackage(ctx.db, member.id, request.params.memberPackageId);
        await ctx.events.transaction(async (trx) => {
          await emitMemberPackage(trx, 'memberPackage_deleted', row);
          // The member's credits from this package go with it.
          await emitCreditsDeleted(trx, 'memberPackage', row.id);
          await trx.deleteFrom('member_packages').where('id', '=', row.id).execute();
        });
        return reply.code(204).send();
      },
    );
  };
}
