import {
  CreditUseRecord,
  MemberCreditCreate,
  MemberCreditRecord,
  MemberCreditUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createMemberCredit,
  creditUseRecords,
  currentCredits,
  emitMemberCredit,
  memberCreditChanges,
  memberCreditRecord,
} from '../billing/member-credits.js';
import { usesOfCredit } from '../billing/credits.repository.js';
import type { Db } from '../db/crud.js';
import { collection, collectionRoutes, findIn, registerCollection, underMember } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import type { Caller } from '../kernel/caller.js';
import { findMember } from '../identity/members.js';
import { pagedNote } from '../http/openapi-doc.js';

const today = (ctx: HubServices) => ctx.clock.now().toISOString().slice(0, 10);

/**
 * A member's credits: what their packages granted for each period, and credits an admin gives
 * by hand; `remaining` is what is left. Members see their own, admins write.
 */
export const memberCredits = collection({
  ...underMember('member_credits', 'credits'),
  record: MemberCreditRecord,
  toRecord: memberCreditRecord,
  list: {
    query: {
      current: z.enum(['true', 'false']).optional().describe("true: only credits of today's period"),
    },
    where: (base, query, ctx) => (query.current === 'true' ? currentCredits(base, today(ctx)) : base),
    order: [
      ['fromDate', 'desc'],
      ['id', 'desc'],
    ],
  },
  create: {
    body: MemberCreditCreate,
    insert: async (trx, { ctx, caller, body, params, at }) =>
      createMemberCredit(trx, {
        member: await findMember(trx, caller, params.memberId),
        body,
        today: today(ctx),
        stamp: { at, by: caller.memberId },
      }),
  },
  update: {
    body: MemberCreditUpdate,
    columns: (body, row) => memberCreditChanges(row, body),
    written: (trx, _before, after) => emitMemberCredit(trx, 'memberCredit_updated', after),
  },
  remove: { before: (trx, row) => emitMemberCredit(trx, 'memberCredit_deleted', row) },
  committed: (ctx) => ctx.events.committed(),
  docs: {
    list: {
      summary: 'List a member’s credits',
      description: `What the member’s packages granted for each period, and credits given by hand, with what is left. \`current=true\` keeps only credits of today’s period (used-up ones too). ${pagedNote}`,
    },
    create: {
      summary: 'Give a member a credit',
      description:
        'A credit given by hand (no package behind it): `amount` remains in full, for `scope` (default global) from `fromDate` (default today) until `untilDate` (exclusive; null: never). Emits memberCredit_created. Answers 201.',
      errors: { 422: '`untilDate` is not after `fromDate`.' },
      example: {
        amount: '20.00',
        scope: 'usage',
        fromDate: '2026-12-01',
        untilDate: '2027-01-01',
        notes: 'Helped at the open day',
      },
    },
    update: {
      summary: 'Change a member’s credit',
      description: `A new \`amount\` moves \`remaining\` by the difference (what was spent stays spent; never below zero). Emits memberCredit_updated.`,
      errors: { 422: '`untilDate` is not after `fromDate`.' },
      example: { amount: '25.00', notes: 'Topped up', lockVersion: 1 },
    },
    remove: {
      summary: 'Delete a member’s credit',
      description: 'Its uses go with it; emits memberCredit_deleted.',
    },
  },
});

/** The uses of a credit the caller sees (404 otherwise). */
async function usesOf(ctx: HubServices, caller: Caller, params: Record<string, number>, db: Db) {
  const credit = await findIn(memberCredits, ctx, caller, params, params.creditId, db);
  return usesOfCredit(db, credit.id);
}

/** What consumed a member's credit: sessions and bookings paid from it (read only). */
export const creditUses = collection({
  table: 'credit_uses',
  path: '/members/:memberId/credits/:creditId/uses',
  nouns: "a member credit's uses",
  record: CreditUseRecord,
  scope: usesOf,
  records: (ctx, rows) => creditUseRecords(ctx.db, rows),
  list: {
    order: [
      ['createdAt', 'desc'],
      ['id', 'desc'],
    ],
  },
  docs: {
    list: {
      summary: 'List the uses of a member’s credit',
      description: `What consumed the credit: each use names the session (\`resourceLog\`) or \`booking\` it paid and its \`charge\`, newest first. ${pagedNote}`,
    },
  },
});

export function memberCreditsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, memberCredits, async (app) => {
    registerCollection(app, ctx, creditUses as never);
  });
}
