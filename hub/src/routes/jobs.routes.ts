import { JobCreate, JobRecord, JobState, JobType } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { checkJobMember, enqueueJob, jobRecord, visibleJobs } from '../billing/jobs.js';
import { requireAdmin } from '../http/auth.js';
import { collection, collectionRoutes } from '../http/collection.js';
import { orderParam } from '../http/list.js';
import type { HubServices } from '../http/services.js';

/** spec: jobs, the hub's background work (admins see their account's; members none). */
export const jobs = collection({
  table: 'jobs',
  record: JobRecord,
  visible: visibleJobs,
  toRecord: jobRecord,
  list: {
    equals: { type: JobType.optional(), state: JobState.optional() },
    query: { order: orderParam.default('desc') },
    order: (query) => [['id', query.order as 'asc' | 'desc']],
  },
});

/**
 * `POST /jobs {type}` (admins) queues a run now: `invoiceRun` invoices every member with
 * uninvoiced charges (or `member`), `packageBilling` charges package fees and renews credits (it
 * also runs by itself every hour). Answers 202.
 */
export function jobsRoutes(ctx: HubServices, wake?: () => void): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, jobs, async (app) => {
    app.post(
      '/jobs',
      {
        schema: {
          tags: ['jobs'],
          summary: 'Queue a job',
          description:
            '`invoiceRun` invoices every member with uninvoiced charges (or only `member`); `packageBilling` charges package fees and renews credits. Admins and owners; answers 202 with the queued job.',
          body: JobCreate,
          response: { 202: JobRecord },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const { type, member } = request.body;
        await checkJobMember(ctx.db, caller.accountId, type, member);
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
  });
}
