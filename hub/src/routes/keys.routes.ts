import {
  KeyAssignmentCreate,
  KeyAssignmentRecord,
  KeyAssignmentUpdate,
  MemberKeyPut,
  MemberKeyRecord,
  KeyType,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { adminNoContentRoute } from '../http/route-kinds.js';
import { adminRoute, memberRoute } from '../http/route.js';
import { collection, ofAccount, registerCollection } from '../http/collection.js';
import { notFound } from '../errors.js';
import { adminOnly, type Caller } from '../kernel/caller.js';
import { findMember, type MemberRow } from '../identity/members.js';
import { onMember } from './on-member.js';
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
/** What PUT and POST /members/:memberId/key ask for, on the member of the path. */
type KeyChange = { params: { memberId: number }; body: z.infer<typeof MemberKeyChange> };

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
  docs: {
    get: {
      summary: 'Get a key assignment',
      description: '`pending` while it waits for a card, `assigned` with the card read, or `expired`.',
      admins: true,
    },
    create: {
      summary: 'Assign the next card read to a member',
      description:
        'Starts a key assignment: the next card tapped at the reader of `resource` within 15 seconds becomes the member’s key card. Without `resource`, name the reader later with PUT. Poll GET /key-assignments/{assignmentId} until `state` is `assigned` or `expired`.',
      errors: { 422: 'The resource does not exist in this account.' },
      example: { member: 42, resource: 7 },
    },
    update: {
      summary: 'Move a key assignment to another reader',
      description: 'Names the reader where the member will tap the card; the 15 seconds start again.',
      errors: { 422: 'The resource does not exist in this account, or the assignment is finished already.' },
      example: { resource: 7 },
    },
    remove: {
      summary: 'Cancel a key assignment',
    },
  },
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
    memberRoute(
      app,
      'get',
      '/members/:memberId/key',
      {
        tags: ['members'],
        summary: 'Get a member’s key card',
        description:
          'The member’s key card (type, token, state). Members read their own, admins any of their account; 404 when the member has none.',
        params: MemberParams,
        response: { 200: MemberKeyRecord },
      },
      async (request, caller) => memberKeyRecord((await keyOf(caller, request.params.memberId)).key),
    );

    const setKeySchema = {
      tags: ['members'],
      errors: { 422: 'The card belongs to another member of the account (`data.duplicateKey`).' },
      params: MemberParams,
      body: MemberKeyChange,
      response: { 200: MemberKeyRecord },
    };
    const setKey = onMember(ctx.db, async (member, request: KeyChange, caller) => {
      const { row } = await changeKey((trx, at) =>
        putMemberKey(trx, member, request.body, caller.memberId, at),
      );
      return memberKeyRecord(row);
    });
    const put = {
      summary: 'Give a member a key card',
      description:
        'Sets the member’s one key card (type and token as the reader sends it, hex) or changes its state; without `type` the card keeps its type. The account’s bridges update their offline key lists at once.',
      example: { type: 'em4102', token: '0A1B2C3D4E', state: 'active' },
    };
    adminRoute(app, 'put', '/members/:memberId/key', { ...setKeySchema, ...put }, setKey);
    const post = {
      summary: 'Give a member a key card (as PUT)',
      description:
        'The same as PUT /members/{memberId}/key (the commercial interface creates keys with POST). Without `type` the card keeps its type; a member without a card needs one (400).',
      example: { type: 'em4102', token: '0A1B2C3D4E' },
    };
    adminRoute(app, 'post', '/members/:memberId/key', { ...setKeySchema, ...post }, setKey);

    // A member may disable their own card, never enable one: that stays with the admins.
    memberRoute(
      app,
      'post',
      '/members/:memberId/key/lost',
      {
        tags: ['members'],
        summary: 'Report a key card lost',
        description:
          'The member (or an admin) marks the card inactive: it stops opening at once, and the bridges drop it from their offline keys. An admin makes it active again with PUT /members/{id}/key.',
        params: MemberParams,
        response: { 200: MemberKeyRecord },
      },
      async (request, caller) => {
        const { member, key } = await keyOf(caller, request.params.memberId);
        const { row } = await changeKey(async (trx, at) => {
          const changed = await putMemberKey(
            trx,
            member,
            { token: key.token, state: 'inactive' },
            caller.memberId,
            at,
          );
          if (key.state !== 'inactive')
            await ctx.notifications.cardLost(trx, { account: member.account, member: member.id, at });
          return changed;
        });
        return memberKeyRecord(row);
      },
    );

    adminNoContentRoute(
      app,
      'delete',
      '/members/:memberId/key',
      {
        tags: ['members'],
        summary: 'Take a member’s key card away',
        description:
          'The card stops opening anything at once and leaves the bridges’ offline keys. Answers 204; 404 when the member has no card.',
        params: MemberParams,
      },
      onMember(ctx.db, async (member) => {
        if (!(await changeKey((trx) => deleteMemberKey(trx, member.id)))) throw notFound('Key');
      }),
    );
  };
}
