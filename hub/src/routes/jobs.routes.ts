import {
  InvoiceRunPreview,
  InvoiceRunPreviewQuery,
  JobCreate,
  JobRecord,
  JobState,
  JobType,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { checkJobMember, enqueueJob, jobRecord, previewInvoiceRun, visibleJobs } from '../billing/jobs.js';
import { requireAdmin } from '../http/auth.js';
import { collection, collectionRoutes } from '../http/collection.js';
import { orderParam } from '../http/list.js';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { adminOnly } from '../kernel/caller.js';
import { pagedNote } from '../http/openapi-doc.js';

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
  docs: {
    list: {
      summary: 'List jobs',
      description: `The hub’s background work (invoice runs, package billing); \`type\` and \`state\` filter. ${pagedNote}`,
    },
    get: {
      summary: 'Get a job',
      description: 'Its state and result.',
    },
  },
});

/**
 * `POST /jobs {type}` (admins) queues a run now: `invoiceRun` invoices every member with
 * uninvoiced charges (or `member`), `packageBilling` charges package fees and renews credits (it
 * also runs by itself every hour). Answers 202.
 */
export function jobsRoutes(ctx: HubServices, wake?: () => void): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, jobs, async (app) => {
    memberRoute(
      app,
      'get',
      '/jobs/invoice-run-preview',
      {
        tags: ['jobs'],
        summary: 'Preview an invoice run (what POST /jobs {type: invoiceRun} would invoice now)',
        description:
          'A dry run that writes nothing: the members the run would invoice now (every member with charges on no invoice yet, or only `member`), and per member the invoice it would make (date, due date, total) with its lines, computed by the same code as the run. Members the run would skip are listed with the reason. Invoice numbers are taken when the run makes the invoices. Admins and owners.',
        querystring: InvoiceRunPreviewQuery,
        response: { 200: InvoiceRunPreview },
      },
      async (request, caller) => {
        const { accountId } = adminOnly(caller);
        await checkJobMember(ctx.db, accountId, 'invoiceRun', request.query.member);
        return previewInvoiceRun(ctx.db, accountId, request.query.member, ctx.clock.now());
      },
    );

    app.post(
      '/jobs',
      {
        schema: {
          tags: ['jobs'],
          summary: 'Queue a job',
          description:
            '`invoiceRun` invoices every member with uninvoiced charges (or only `member`); `packageBilling` charges package fees and renews credits. Admins and owners; answers 202 with the queued job.',
          admins: true,
          errors: { 422: '`member` was given for a job other than `invoiceRun`, or does not exist.' },
          example: { type: 'invoiceRun', member: 42 },
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
