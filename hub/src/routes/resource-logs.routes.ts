import { Id, ResourceLogCreate, ResourceLogRecord, ResourceLogType } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { unprocessable } from '../errors.js';
import { pageParams, queryPage, sendPage } from '../http/list.js';
import { findResource } from '../resources/resources.js';
import {
  findLog,
  insertLog,
  type ResourceLogRow,
  resourceLogRecord,
  visibleLogs,
} from '../resources/resource-logs.js';

const IdParams = z.object({ logId: z.coerce.number().int().positive() });
const ListQuery = z.object({
  ...pageParams,
  resource: Id.optional(),
  member: Id.optional(),
  type: z.array(ResourceLogType).default([]),
  status: z.enum(['active', 'all']).default('all'),
  order: z.enum(['asc', 'desc']).default('desc'),
  resolve: z.array(z.enum(['member'])).default([]),
});

/** spec 4.8: resource logs (who used what, when; denials with their reason). */
export function resourceLogsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  /** resolve=member replaces the member id by {id, memberNumber, firstName, lastName, state}. */
  async function records(rows: ResourceLogRow[], resolveMember: boolean) {
    const out = rows.map(resourceLogRecord);
    if (!resolveMember) return out;
    const ids = [...new Set(rows.map((r) => r.member).filter((m): m is number => m !== null))];
    const members = ids.length
      ? await ctx.db
          .selectFrom('members')
          .select(['id', 'memberNumber', 'firstName', 'lastName', 'state'])
          .where('id', 'in', ids)
          .execute()
      : [];
    const byId = new Map(members.map((m) => [m.id, m]));
    return out.map((r) => ({
      ...r,
      member: typeof r.member === 'number' ? (byId.get(r.member) ?? r.member) : r.member,
    }));
  }

  return async (app) => {
    app.get(
      '/resource-logs',
      {
        schema: {
          tags: ['resource-logs'],
          querystring: ListQuery,
          response: { 200: z.array(ResourceLogRecord) },
        },
      },
      async (request, reply) => {
        const { limit, offset, resource, member, type, status, order, resolve } = request.query;
        let base = visibleLogs(ctx.db, callerOf(request));
        if (resource) base = base.where('resource', '=', resource);
        if (member) base = base.where('member', '=', member);
        if (type.length) base = base.where('type', 'in', type);
        if (status === 'active') base = base.where('stoppedAt', 'is', null).where('type', '=', 'allowed');
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id', order));
        return sendPage(
          request,
          reply,
          page,
          await records(page.rows, resolve.includes('member')),
          ctx.publicUrl,
        );
      },
    );

    app.get(
      '/resource-logs/:logId',
      {
        schema: {
          tags: ['resource-logs'],
          params: IdParams,
          querystring: z.object({ resolve: z.array(z.enum(['member'])).default([]) }),
          response: { 200: ResourceLogRecord },
        },
      },
      async (request) => {
        const row = await findLog(ctx.db, callerOf(request), request.params.logId);
        return (await records([row], request.query.resolve.includes('member')))[0];
      },
    );

    // Admins record usage that no bridge reported (a machine without a bridge, a correction).
    app.post(
      '/resource-logs',
      { schema: { tags: ['resource-logs'], body: ResourceLogCreate, response: { 201: ResourceLogRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const body = request.body;
        const resource = await findResource(ctx.db, caller, body.resource);
        if (body.member) {
          const member = await ctx.db
            .selectFrom('members')
            .select('id')
            .where('id', '=', body.member)
            .where('account', '=', resource.account)
            .executeTakeFirst();
          if (!member)
            throw unprocessable(`Member ${body.member} does not exist in this account`, {
              unknownMember: true,
            });
        }
        const row = await ctx.events.transaction((trx) =>
          insertLog(
            trx,
            {
              account: resource.account,
              resource: resource.id,
              type: body.type,
              member: body.member ?? null,
              createdAt: body.createdAt ? new Date(body.createdAt).toISOString() : undefined,
              stoppedAt: body.stoppedAt ? new Date(body.stoppedAt).toISOString() : null,
              stopType: body.stopType ?? null,
              reason: body.reason ?? null,
              notes: body.notes ?? null,
              metadata: body.metadata ?? null,
              idleDurationSeconds: body.idleDurationSeconds ?? null,
              updatedBy: caller.memberId,
            },
            { resource },
          ),
        );
        return reply.code(201).send(resourceLogRecord(row));
      },
    );
  };
}
