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
import { collection, collectionRoutes } from '../http/collection.js';
import { orderParam } from '../http/list.js';
import type { HubServices } from '../http/services.js';
import { adminRoute, memberRoute } from '../http/route.js';
import { memberEmbeds, membersWithEmbeds } from '../http/member-embeds.js';
import {
  createMember,
  emitMember,
  filterMembers,
  findMember,
  memberChanges,
  memberOrder,
  refuseDuplicateEmail,
  refuseMemberDelete,
  setPrivileges,
  userMeRecord,
  visibleMembers,
} from '../identity/members.js';
import { onMember } from './on-member.js';
import { hotMember, hotMemberList } from './members.hot.js';
import { MemberParams } from '../http/params.js';
import { pagedNote } from '../http/openapi-doc.js';

/** Why a member's create or update answers 422. */
const memberRefused =
  'The space does not exist in this account, or another member already has this e-mail address.';

/** Sessions of a member being deleted, read before the delete takes them along; announced after it. */
const endedSessions = new WeakMap<object, number[]>();

/** spec 4.2: members (a member sees and edits only themself; admins their account). */
export const members = collection({
  table: 'members',
  record: MemberRecord,
  embeds: memberEmbeds,
  visible: visibleMembers,
  records: (ctx, rows, _caller, embed) => membersWithEmbeds(ctx.db, rows, embed, ctx.clock.now()),
  list: {
    query: {
      state: z.enum(['active', 'locked', 'pending']).optional(),
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
    },
    // `q` searches names, e-mail address, member number and company, and finds a card's holder.
    where: (base, query, ctx, caller) => filterMembers(base, ctx.db, caller, query),
    order: (query) => memberOrder(query),
  },
  hot: {
    list: (ctx, caller, query) => hotMemberList(ctx, caller, query),
    get: (ctx, caller, id) => hotMember(ctx, caller, id),
  },
  create: {
    body: MemberCreate,
    insert: (trx, { caller, body, at }) => createMember(trx, caller, body, at),
  },
  update: {
    body: MemberUpdate,
    rule: 'member',
    columns: (body, row, { caller, trx }) => memberChanges(trx, caller, row, body),
    written: (trx, _before, after) => emitMember(trx, 'member_updated', after),
  },
  remove: {
    before: async (trx, row, ctx, caller) => {
      refuseMemberDelete(caller, row);
      endedSessions.set(row, await ctx.sessions.idsOfMember(row.id, trx));
    },
    after: (trx, row) => emitMember(trx, 'member_deleted', row),
  },
  refuse: refuseDuplicateEmail,
  committed: async (ctx, row, write) => {
    ctx.caches.counts.touch('members');
    if (write === 'create') return;
    ctx.auth.invalidate();
    // A locked member, or one no longer allowed to log in, is signed out everywhere.
    if (write === 'update' && (row.state !== 'active' || !row.allowLogin))
      await ctx.sessions.revokeOfMember(row.id);
    if (write === 'remove') ctx.sessions.announce(endedSessions.get(row) ?? []);
  },
  docs: {
    list: {
      summary: 'List members',
      description: `Admins see every member of their account, other members only themselves. Filters: \`state\`, \`privileges\`, \`space\`, \`emailAddress\`, \`memberNumber\`, and \`keyType\` with \`keyToken\` to find the holder of a key card; \`q\` searches names, e-mail address, member number and company, and finds a key card’s holder by the card id. \`embed=\` adds \`memberPackages\` (each with its package in its own \`_embedded.package\`; \`activePackages\` fills the same list with only the packages active today), \`trainings\`, \`key\` or \`privileges\` (\`device\` is accepted and left out). ${pagedNote}`,
    },
    get: {
      summary: 'Get a member',
      description:
        'Admins read any member of their account, other members only themselves. `embed=` adds `memberPackages` (each with its package in its own `_embedded.package`; `activePackages` fills the same list with only the packages active today), `trainings`, `key` or `privileges` (`device` is accepted and left out).',
    },
    create: {
      summary: 'Add a member',
      description:
        'Creates a member of the caller’s account (privileges `member`; grant more with PUT /members/{memberId}/privileges). Unknown fields answer 400. The member can sign in once invited (POST /members/{memberId}/invitation).',
      errors: { 422: memberRefused },
      example: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        emailAddress: 'ada@example.org',
        memberNumber: 'M-0042',
        space: 1,
      },
    },
    update: {
      summary: 'Change a member',
      description:
        'Members may change their own record; admins any member of their account. A member set `locked`, or no longer allowed to sign in (`allowLogin: false`), is signed out everywhere at once.',
      errors: { 422: memberRefused },
      example: { lockVersion: 3, phone: '+43 1 234 5678', city: 'Vienna' },
    },
    remove: {
      summary: 'Delete a member',
      description: 'Deletes the member and ends their sessions. Only owners may delete an owner.',
      errors: { 409: 'The caller tried to delete their own member record.' },
    },
  },
});

const Privileges = z.object({ privileges: MemberPrivileges });

/** spec 4.2: members, their privileges, and /user/me. */
export function membersRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, members, async (app) => {
    memberRoute(
      app,
      'get',
      '/members/:memberId/privileges',
      {
        tags: ['members'],
        summary: 'Get a member’s privileges',
        description: '`member`, `admin` or `owner`.',
        params: MemberParams,
        response: { 200: Privileges },
      },
      onMember(ctx.db, (row) => ({ privileges: row.privileges as MemberPrivileges })),
    );

    adminRoute(
      app,
      'put',
      '/members/:memberId/privileges',
      {
        tags: ['members'],
        summary: 'Set a member’s privileges',
        description:
          'Admins make members admins or plain members; only owners grant or take away `owner`. Nobody changes their own privileges (another admin or owner must), and an account keeps at least one owner. Setting the privileges a member already has changes nothing.',
        errors: {
          422: 'The change would leave the account without an owner (`data.lastOwner`), or the caller tried to change their own privileges (`data.ownPrivileges`).',
        },
        example: { privileges: 'admin' },
        params: MemberParams,
        body: Privileges,
        response: { 200: Privileges },
      },
      onMember(ctx.db, async (row, request, caller) => {
        await setPrivileges(ctx.db, caller, row, request.body.privileges);
        ctx.auth.invalidate();
        ctx.caches.counts.touch('members');
        return request.body;
      }),
    );

    memberRoute(
      app,
      'get',
      '/user/me',
      {
        tags: ['user'],
        summary: 'Who am I',
        description: 'The caller as a member record, without `state` and `superuser`.',
        response: { 200: UserMe },
      },
      async (_request, caller) => {
        const row = await findMember(ctx.db, caller, caller.memberId);
        return userMeRecord(row);
      },
    );
  });
}
