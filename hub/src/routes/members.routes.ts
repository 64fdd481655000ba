import {
  Id,
  KeyToken,
  KeyType,
  MemberCreate,
  MemberPrivileges,
  MemberRecord,
  MemberUpdate,
  UserMe,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { isAdmin } from '../identity/caller.js';
import { recordsJson } from '../http/caches.js';
import { conflict, forbidden, notFound, unprocessable } from '../errors.js';
import { embedParam, orderParam, pageParams, sendJson, sendPage } from '../http/list.js';
import {
  canSeeMember,
  createMember,
  deleteMember,
  findMember,
  filteredMembers,
  orderedMembers,
  type MemberRow,
  memberRecord,
  updateMember,
  userMeRecord,
  visibleMembersSql,
} from '../identity/members.js';

const memberEmbeds = ['privileges'] as const;
const IdParams = z.object({ memberId: z.coerce.number().int().positive() });

const ListQuery = z.object({
  ...pageParams,
  state: z.enum(['active', 'locked']).optional(),
  privileges: MemberPrivileges.optional(),
  space: Id.optional(),
  emailAddress: z.string().optional(),
  memberNumber: z.string().optional(),
  keyType: KeyType.optional(),
  keyToken: KeyToken.optional(),
  orderBy: z
    .enum(['id', 'firstName', 'lastName', 'memberNumber', 'emailAddress', 'createdAt', 'updatedAt'])
    .default('id'),
  order: orderParam,
  embed: embedParam(memberEmbeds),
});

function withEmbeds(row: MemberRow, embeds: readonly string[]) {
  const record: MemberRecord = memberRecord(row);
  if (embeds.length === 0) return record;
  const embedded: Record<string, unknown> = {};
  if (embeds.includes('privileges')) embedded.privileges = { privileges: row.privileges };
  return { ...record, _embedded: embedded };
}

/** spec 4.2: members, their privileges, and /user/me. */
export function membersRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/members',
      { schema: { tags: ['members'], querystring: ListQuery, response: { 200: z.array(MemberRecord) } } },
      async (request, reply) => {
        const caller = callerOf(request);
        const query = request.query;
        const { limit, offset, embed, orderBy, order, ...filters } = query;
        const scope = [caller.superuser ? '*' : caller.accountId, isAdmin(caller) ? '' : caller.memberId];
        const countKey = JSON.stringify([scope, filters]);
        const fetchRecords = (ids: number[]) =>
          ctx.db.selectFrom('members').selectAll().where('id', 'in', ids).execute();
        const toJson = (row: MemberRow) => JSON.stringify(memberRecord(row));

        // Hottest shape (the whole list by id, no filter, search or embed): plain SQL on the
        // fast reads, record texts from the cache.
        if (embed.length === 0 && orderBy === 'id' && Object.values(filters).every((v) => v === undefined)) {
          const { where, params } = visibleMembersSql(caller);
          const total = await ctx.caches.counts.count('members', countKey, async () => {
            const row = await ctx.storage.reads.first<{ n: number | string }>(
              `select count(*) as "n" from "members" ${where}`,
              params,
            );
            return Number(row?.n ?? 0);
          });
          const pairs = await ctx.storage.reads.tuples<[number, number]>(
            `select "id", "lockVersion" from "members" ${where} order by "id" ${order === 'desc' ? 'desc' : 'asc'} limit ? offset ?`,
            [...params, limit, offset],
          );
          const keys = pairs.map(([id, lockVersion]) => ({ id, lockVersion }));
          const json = await recordsJson(ctx.caches.records, 'members', keys, fetchRecords, toJson);
          return sendPage(request, reply, { limit, offset, total }, json, ctx.publicUrl, keys.length);
        }

        const base = filteredMembers(ctx.db, caller, query);
        const total = await ctx.caches.counts.count('members', countKey, async () => {
          const [{ n }] = await base.select((eb) => eb.fn.countAll<number>().as('n')).execute();
          return Number(n);
        });
        const page = { limit, offset, total };
        if (embed.length > 0) {
          const rows = await orderedMembers(base.selectAll(), query).limit(limit).offset(offset).execute();
          return sendPage(
            request,
            reply,
            page,
            rows.map((row) => withEmbeds(row, embed)),
            ctx.publicUrl,
          );
        }
        // Hot path: read ids and versions only; record texts come from the cache.
        const keys = await orderedMembers(base.select(['id', 'lockVersion']), query)
          .limit(limit)
          .offset(offset)
          .execute();
        const json = await recordsJson(ctx.caches.records, 'members', keys, fetchRecords, toJson);
        return sendPage(request, reply, page, json, ctx.publicUrl, keys.length);
      },
    );

    app.post(
      '/members',
      { schema: { tags: ['members'], body: MemberCreate, response: { 201: MemberRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await ctx.events.transaction((trx) => createMember(trx, caller, request.body));
        ctx.caches.counts.touch('members');
        return reply.code(201).send(memberRecord(row));
      },
    );

    app.get(
      '/members/:memberId',
      {
        schema: {
          tags: ['members'],
          params: IdParams,
          querystring: z.object({ embed: embedParam(memberEmbeds) }),
          response: { 200: MemberRecord },
        },
      },
      async (request, reply) => {
        // Hot path: a prepared read of the id, account and version; the record text comes from
        // the cache (keyed by lockVersion), so the whole row is read only when the text is not there.
        const id = request.params.memberId;
        const [key] = await ctx.storage.reads.tuples<[number, number, number]>(
          'select "id", "account", "lockVersion" from "members" where "id" = ?',
          [id],
        );
        if (!key || !canSeeMember(callerOf(request), { id: key[0], account: key[1] }))
          throw notFound('Member');
        const cached =
          request.query.embed.length > 0 ? undefined : ctx.caches.records.get('members', id, key[2]);
        if (cached !== undefined) return sendJson(reply, cached);
        const row = await ctx.storage.reads.first<MemberRow>('select * from "members" where "id" = ?', [id]);
        if (!row) throw notFound('Member'); // deleted between the two reads
        if (request.query.embed.length > 0) return withEmbeds(row, request.query.embed);
        const json = JSON.stringify(memberRecord(row));
        ctx.caches.records.set('members', row.id, row.lockVersion, json);
        return sendJson(reply, json);
      },
    );

    app.put(
      '/members/:memberId',
      {
        schema: { tags: ['members'], params: IdParams, body: MemberUpdate, response: { 200: MemberRecord } },
      },
      async (request) => {
        const caller = callerOf(request);
        const row = await ctx.events.transaction((trx) =>
          updateMember(trx, caller, request.params.memberId, request.body),
        );
        ctx.auth.invalidate();
        // A locked member, or one no longer allowed to log in, is signed out everywhere.
        if (row.state !== 'active' || !row.allowLogin) await ctx.sessions.revokeOfMember(row.id);
        ctx.caches.counts.touch('members');
        return memberRecord(row);
      },
    );

    app.delete(
      '/members/:memberId',
      { schema: { tags: ['members'], params: IdParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await findMember(ctx.db, caller, request.params.memberId);
        if (row.id === caller.memberId) throw conflict('You cannot delete your own member record');
        if (row.privileges === 'owner' && caller.privileges !== 'owner' && !caller.superuser) {
          throw forbidden('Only owners may delete an owner');
        }
        const sessions = await ctx.sessions.idsOfMember(row.id);
        await ctx.events.transaction((trx) => deleteMember(trx, row));
        ctx.auth.invalidate();
        ctx.sessions.announce(sessions);
        ctx.caches.counts.touch('members');
        return reply.code(204).send();
      },
    );

    app.get(
      '/members/:memberId/privileges',
      {
        schema: {
          tags: ['members'],
          params: IdParams,
          response: { 200: z.object({ privileges: MemberPrivileges }) },
        },
      },
      async (request) => {
        const row = await findMember(ctx.db, callerOf(request), request.params.memberId);
        return { privileges: row.privileges as MemberPrivileges };
      },
    );

    app.put(
      '/members/:memberId/privileges',
      {
        schema: {
          tags: ['members'],
          params: IdParams,
          body: z.object({ privileges: MemberPrivileges }),
          response: { 200: z.object({ privileges: MemberPrivileges }) },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findMember(ctx.db, caller, request.params.memberId);
        const wanted = request.body.privileges;
        const isOwner = caller.privileges === 'owner' || caller.superuser;
        if ((wanted === 'owner' || row.privileges === 'owner') && !isOwner) {
          throw forbidden('Only owners may grant or take away owner privileges');
        }
        if (row.id === caller.memberId && row.privileges === 'owner' && wanted !== 'owner') {
          const owners = await ctx.db
            .selectFrom('members')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account', '=', row.account)
            .where('privileges', '=', 'owner')
            .executeTakeFirstOrThrow();
          if (Number(owners.n) <= 1)
            throw unprocessable('An account needs at least one owner', { lastOwner: true });
        }
        await ctx.db.updateTable('members').set({ privileges: wanted }).where('id', '=', row.id).execute();
        ctx.auth.invalidate();
        ctx.caches.counts.touch('members');
        return { privileges: wanted };
      },
    );

    app.get('/user/me', { schema: { tags: ['user'], response: { 200: UserMe } } }, async (request) => {
      const row = await findMember(ctx.db, callerOf(request), callerOf(request).memberId);
      return userMeRecord(row);
    });
  };
}
