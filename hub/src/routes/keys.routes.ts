import {
  type KeyType,
  KeyAssignmentCreate,
  KeyAssignmentRecord,
  KeyAssignmentUpdate,
  MemberKeyPut,
  MemberKeyRecord,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { notFound } from '../errors.js';
import { findMember } from '../identity/members.js';
import {
  checkResource,
  createKeyAssignment,
  findKeyAssignment,
  keyAssignmentRecord,
  setAssignmentResource,
} from '../keys/key-assignments.js';
import { deleteMemberKey, keyOfMember, memberKeyRecord, putMemberKey } from '../keys/member-keys.js';

const MemberParams = z.object({ memberId: z.coerce.number().int().positive() });
const AssignmentParams = z.object({ assignmentId: z.coerce.number().int().positive() });

/**
 * Member keys (Fabman's /members/{id}/key) and key assignments (spec 4.3). Offline keys of the
 * account's bridges follow key changes through their memberKey events (followAccessChanges in keys/offline-keys.ts).
 */
export function keysRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/members/:memberId/key',
      { schema: { tags: ['members'], params: MemberParams, response: { 200: MemberKeyRecord } } },
      async (request) => {
        // A member reads their own key; admins any of their account.
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        const key = await keyOfMember(ctx.db, member.id);
        if (!key) throw notFound('Key');
        return memberKeyRecord(key);
      },
    );

    app.put(
      '/members/:memberId/key',
      {
        schema: {
          tags: ['members'],
          params: MemberParams,
          body: MemberKeyPut,
          response: { 200: MemberKeyRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        const { row } = await ctx.events.transaction((trx) =>
          putMemberKey(trx, member, request.body, caller.memberId),
        );
        ctx.caches.counts.touch('members');
        return memberKeyRecord(row);
      },
    );

    app.post(
      '/members/:memberId/key/lost',
      {
        schema: {
          tags: ['members'],
          summary: 'Report a key card lost',
          description:
            'The member (or an admin) marks the card inactive: it stops opening at once, and the bridges drop it from their offline keys. An admin makes it active again with PUT /members/{id}/key.',
          params: MemberParams,
          response: { 200: MemberKeyRecord },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        // A member may disable their own card, never enable one: that stays with the admins.
        const member = await findMember(ctx.db, caller, request.params.memberId);
        const key = await keyOfMember(ctx.db, member.id);
        if (!key) throw notFound('Key');
        const { row } = await ctx.events.transaction((trx) =>
          putMemberKey(
            trx,
            member,
            { type: key.type as KeyType, token: key.token, state: 'inactive' },
            caller.memberId,
          ),
        );
        ctx.caches.counts.touch('members');
        return memberKeyRecord(row);
      },
    );

    app.delete(
      '/members/:memberId/key',
      { schema: { tags: ['members'], params: MemberParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        if (!(await ctx.events.transaction((trx) => deleteMemberKey(trx, member.id)))) throw notFound('Key');
        ctx.caches.counts.touch('members');
        return reply.code(204).send();
      },
    );

    app.post(
      '/key-assignments',
      {
        schema: { tags: ['members'], body: KeyAssignmentCreate, response: { 201: KeyAssignmentRecord } },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.body.member);
        const resource = request.body.resource ?? null;
        await checkResource(ctx.db, member.account, resource);
        const at = ctx.clock.now();
        const row = await createKeyAssignment(
          ctx.db,
          { account: member.account, member: member.id, resource, createdBy: caller.memberId },
          at,
        );
        return reply.code(201).send(keyAssignmentRecord(row, at));
      },
    );

    app.get(
      '/key-assignments/:assignmentId',
      { schema: { tags: ['members'], params: AssignmentParams, response: { 200: KeyAssignmentRecord } } },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findKeyAssignment(ctx.db, caller, request.params.assignmentId);
        return keyAssignmentRecord(row, ctx.clock.now());
      },
    );

    app.put(
      '/key-assignments/:assignmentId',
      {
        schema: {
          tags: ['members'],
          params: AssignmentParams,
          body: KeyAssignmentUpdate,
          response: { 200: KeyAssignmentRecord },
        },
      },
      async (request) => {
        const caller = requireAdmin(request);
        const row = await findKeyAssignment(ctx.db, caller, request.params.assignmentId);
        await checkResource(ctx.db, row.account, request.body.resource);
        const at = ctx.clock.now();
        return keyAssignmentRecord(await setAssignmentResource(ctx.db, row, request.body.resource, at), at);
      },
    );

    app.delete(
      '/key-assignments/:assignmentId',
      { schema: { tags: ['members'], params: AssignmentParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await findKeyAssignment(ctx.db, caller, request.params.assignmentId);
        await ctx.db.deleteFrom('key_assignments').where('id', '=', row.id).execute();
        return reply.code(204).send();
      },
    );
  };
}
