import {
  KeyAssignmentCreate,
  KeyAssignmentRecord,
  KeyAssignmentUpdate,
  MemberKeyPut,
  MemberKeyRecord,
  KeyType,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { collection, ofAccount, registerCollection } from '../http/collection.js';
import { notFound } from '../errors.js';
import { adminOnly, type Caller } from '../identity/caller.js';
import { findMember, type MemberRow } from '../identity/members.js';
import { keyAssignmentRecord, setAssignmentResource, startKeyAssignment } from '../keys/key-assignments.js';
import {
  deleteMemberKey,
  keyOfMember,
  type MemberKeyRow,
  memberKeyRecord,
  putMemberKey,
} from '../keys/member-keys.js';
import { MemberParams } from '../http/params.js';

/** PUT and POST of a member's key: without `type` the key keeps its type. */
const MemberKeyChange = MemberKeyPut.extend({ type: KeyType.optional() });

/** spec 4.3: key assignments (the next card tapped at a reader becomes a member's key). */
export const keyAssignments = collection({
  table: 'key_assignments',
  tag: 'members',
  record: KeyAssignmentRecord,
  // Assignments are admin business: members get 403 before anything is looked up.
  scope: (_ctx, caller, _params, db) => ofAccount(db, 'key_assignments', adminOnly(caller)),
  records: (ctx, rows) => rows.map((row) => keyAssignmentRecord(row, ctx.clock.now())),
  create: {
    body: KeyAssignmentCreate,
    insert: (trx, { ctx, caller, body }) => startKeyAssignment(trx, caller, body, ctx.clock.now()),
  },
  update: {
    body: KeyAssignmentUpdate,
    write: (trx, row, body, { ctx }) => setAssignmentResource(trx, row, body.resource, ctx.clock.now()),
  },
  remove: {},
});

/**
 * Member keys (Fabman's /members/{id}/key) and key assignments (spec 4.3). Offline keys of the
 * account's bridges follow key changes through their memberKey events (followAccessChanges in keys/offline-keys.ts).
 */
export function keysRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  /** A key change in its own transaction, stamped by the hub's clock. */
  const changeKey = async <R>(write: (trx: HubServices['db'], at: string) => Promise<R>): Promise<R> => {
    const result = await ctx.events.transaction((trx) => write(trx, ctx.clock.now().toISOString()));
    ctx.caches.counts.touch('members');
    return result;
  };
  /** The member of the path as the caller sees them, and their key (404 when either is missing). */
  const keyOf = async (caller: Caller, memberId: number) => {
    const member = await findMember(ctx.db, caller, memberId);
    const key = await keyOfMember(ctx.db, member.id);
    if (!key) throw notFound('Key');
    return { member, key } as { member: MemberRow; key: MemberKeyRow };
  };

  return async (app) => {
    registerCollection(app, ctx, keyAssignments);

    // A member reads their own key; admins any of their account.
    app.get(
      '/members/:memberId/key',
      { schema: { tags: ['members'], params: MemberParams, response: { 200: MemberKeyRecord } } },
      async (request) => memberKeyRecord((await keyOf(callerOf(request), request.params.memberId)).key),
    );

    const setKeySchema = {
      tags: ['members'],
      params: MemberParams,
      body: MemberKeyChange,
      response: { 200: MemberKeyRecord },
    };
    const setKey = async (request: FastifyRequest) => {
      const caller = requireAdmin(request);
      const { memberId } = request.params as { memberId: number };
      const member = await findMember(ctx.db, caller, memberId);
      const body = request.body as z.infer<typeof MemberKeyChange>;
      const { row } = await changeKey((trx, at) => putMemberKey(trx, member, body, caller.memberId, at));
      return memberKeyRecord(row);
    };
    app.put('/members/:memberId/key', { schema: setKeySchema }, setKey);
    app.post('/members/:memberId/key', { schema: setKeySchema }, setKey);

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
        // A member may disable their own card, never enable one: that stays with the admins.
        const caller = callerOf(request);
        const { member, key } = await keyOf(caller, request.params.memberId);
        const { row } = await changeKey((trx, at) =>
          putMemberKey(trx, member, { token: key.token, state: 'inactive' }, caller.memberId, at),
        );
        return memberKeyRecord(row);
      },
    );

    app.delete(
      '/members/:memberId/key',
      { schema: { tags: ['members'], params: MemberParams } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        if (!(await changeKey((trx) => deleteMemberKey(trx, member.id)))) throw notFound('Key');
        return reply.code(204).send();
      },
    );
  };
}
