import { MemberChangeCreate, MemberChangeRecord, MemberChangeUpdate } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { collection, insertForMember, registerCollection, underMember } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { createMemberChange, memberChangeColumns, memberChangeRecords } from '../identity/member-changes.js';
import type { MemberRow } from '../identity/members.js';

/**
 * Scheduled changes of a member's data: member fields with the `date` they apply on. The hub's
 * periodic worker applies them (identity/member-changes.ts). Members see their own, admins write.
 */
export const memberChanges = collection({
  ...underMember('member_changes', 'changes'),
  nouns: "a member's scheduled changes",
  record: MemberChangeRecord,
  records: (ctx, rows) => memberChangeRecords(ctx.db, rows),
  list: {
    query: { state: z.enum(['scheduled', 'applied']).optional() },
    where: (base, query) =>
      query.state === undefined
        ? base
        : base.where('appliedAt', query.state === 'applied' ? 'is not' : 'is', null),
    order: [
      ['date', 'desc'],
      ['id', 'desc'],
    ],
  },
  create: {
    body: MemberChangeCreate,
    insert: insertForMember(createMemberChange),
  },
  update: { body: MemberChangeUpdate, columns: (body, row) => memberChangeColumns(row, body) },
  remove: {},
  docs: {
    create: {
      summary: 'Schedule a change of a member',
      description:
        'Member fields (those of PUT /members/{memberId}, except `space`) to write on `date` (in the member’s space). The hub applies it on that date as a PUT would (member_updated) and marks it `applied`. Answers 201.',
      example: { date: '2027-01-01', state: 'locked', notes: 'Membership ends with the year' },
    },
    update: {
      summary: 'Change a scheduled change',
      description: `Its \`date\`, and the member fields sent replace the change’s. An applied change answers 409.`,
      errors: { 409: 'The change was applied already (`data.applied`), or the lockVersion is stale.' },
      example: { date: '2027-02-01', lockVersion: 1 },
    },
  },
});

/** What a PUT /members/{id} does after its write, for a change the worker applied. */
export function memberChangeApplied(ctx: HubServices) {
  return async (row: MemberRow) => {
    ctx.auth.invalidate();
    // A locked member, or one no longer allowed to log in, is signed out everywhere.
    if (row.state !== 'active' || !row.allowLogin) await ctx.sessions.revokeOfMember(row.id);
    ctx.caches.counts.touch('members');
    ctx.events.committed();
  };
}

export function memberChangesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => registerCollection(app, ctx, memberChanges);
}
