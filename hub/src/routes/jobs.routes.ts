import { JobCreate, JobRecord, JobState, JobType } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { enqueueJob, findJob, jobRecord, visibleJobs } from '../billing/jobs.js';
import type { HubContext } from '../context.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { unprocessable } from '../http/errors.js';
import { orderParam, pageParams, queryPage, sendPage } from '../http/list.js';

const IdParams = z.object({ jobId: z.coerce.number().int().positive() });
const ListQuery = z.object({
  limit: pageParams.limit,
  offset: pageParams.offset,
  type: JobType.optional(),
  state: JobState.optional(),
  order: orderParam.default('desc'),
});

/**
 * spec: jobs, the hub's background work. `POST /jobs {type}` (admins) queues a run now:
 * `invoiceRun` invoices every member with uninvoiced charges (or `member`), `packageBilling`
 * charges package fees and renews credits (it also runs by itself every hour). Answers 202.
 */
export function jobsRoutes(ctx: HubContext, wake?: () => void): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['jobs'];
    app.get(
      '/jobs',
      { schema: { tags, querystring: ListQuery, response: { 200: z.array(JobRecord) } } },
      async (request, reply) => {
        const { limit, offset, type, state, order } = request.query;
        let base = visibleJobs(ctx.db, callerOf(request));
        if (type) base = base.where('type', '=', type);
        if (state) base = base.where('state', '=', state);
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id', order));
        return sendPage(request, reply, page, page.rows.map(jobRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/jobs/:jobId',
      { schema: { tags, params: IdParams, response: { 200: JobRecord } } },
      async (request) => jobRecord(await findJob(ctx.db, callerOf(request), request.params.jobId)),
    );

    app.post(
      '/jobs',
      { schema: { tags, body: JobCreate, response: { 202: JobRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const { type, member } = request.body;
        if (member !== undefined) {
          if (type !== 'invoiceRun')
            throw unprocessable('member applies to invoiceRun only', { member: 'unexpected' });
          const found = await ctx.db
            .selectFrom('members')
            .select('id')
            .where('id', '=', member)
            .where('account', '=', caller.accountId)
            .executeTakeFirst();
          if (!found) throw unprocessable(`Member ${member} does not exist`, { member: 'unknown' });
        }
        const job = await enqueueJob(
          ctx.db,
          caller.accountId,
          type,
          member ? { member } : {},
          ctx.clock.now(),
          caller.memberId,
        );
        wake?.();
        return reply.code(202).send(jobRecord(job));
      },
    );
  };
}
