import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { callerOf } from '../http/auth.js';
import { pageParams, queryPage, sendPage } from '../http/list.js';
import { findMember } from '../identity/members.js';
import { memberCreditRecord } from '../billing/member-credits.js';

const MemberParams = z.object({ memberId: z.coerce.number().int().positive() });
const ListQuery = z.object({
  ...pageParams,
  current: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: only credits whose period includes today and that have something left'),
});

/** A member's credits (what their packages granted and what is left); members see their own. */
export function memberCreditsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/members/:memberId/credits',
      {
        schema: {
          tags: ['members'],
          summary: "A member's credits",
          description:
            'Credits granted by the member’s packages for each period: `amount` given, `remaining`, and the period (`fromDate` inclusive, `untilDate` exclusive). Members see their own, admins any of their account.',
          params: MemberParams,
          querystring: ListQuery,
        },
      },
      async (request, reply) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        const { limit, offset, current } = request.query;
        let base = ctx.db.selectFrom('member_credits').where('member', '=', member.id);
        if (current === 'true') {
          const today = ctx.clock.now().toISOString().slice(0, 10);
          base = base
            .where('fromDate', '<=', today)
            .where((eb) => eb.or([eb('untilDate', 'is', null), eb('untilDate', '>', today)]));
        }
        const page = await queryPage(base, { limit, offset }, (b) =>
          b.selectAll().orderBy('fromDate', 'desc').orderBy('id', 'desc'),
        );
        return sendPage(request, reply, page, page.rows.map(memberCreditRecord), ctx.publicUrl);
      },
    );
  };
}
