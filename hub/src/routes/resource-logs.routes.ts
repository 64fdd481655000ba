import {
  Id,
  ResourceLogCreate,
  ResourceLogRecord,
  ResourceLogType,
  ResourceLogUpdate,
  Timestamp,
} from '@makerspace/shared';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { collection, collectionRoutes } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import {
  createManualLog,
  logChanged,
  logChanges,
  logRecords,
  logRemoved,
  refreshLastUsed,
} from '../resources/log-edits.js';
import { visibleLogs } from '../resources/resource-logs.js';
import { logFilters } from '../resources/resource-logs.repository.js';
import { pagedNote } from '../http/openapi-doc.js';

const resolvesMember = (request?: FastifyRequest) =>
  ((request?.query as { resolve?: string[] } | undefined)?.resolve ?? []).includes('member');

/** spec 4.8: resource logs (who used what, when; denials with their reason). Members see their own. */
export const resourceLogs = collection({
  table: 'resource_logs',
  record: ResourceLogRecord,
  visible: visibleLogs,
  records: (ctx, rows, _caller, _embed, request) => logRecords(ctx.db, rows, resolvesMember(request)),
  recordQuery: {
    resolve: z
      .array(z.enum(['member']))
      .default([])
      .describe('member: the member id becomes {id, memberNumber, firstName, lastName, state}'),
  },
  list: {
    note: 'Newest first (`order=asc` for oldest); `status=active` for sessions still running; `from` and `until` for the logs of a period (a session that began before `from` and ran into it counts).',
    equals: { resource: Id.optional(), member: Id.optional() },
    query: {
      type: z.array(ResourceLogType).default([]),
      status: z.enum(['active', 'all']).default('all'),
      order: z.enum(['asc', 'desc']).default('desc'),
      from: Timestamp.optional().describe(
        'Only logs that overlap the period from this time: made at or after it, or a session still running then',
      ),
      until: Timestamp.optional().describe('Only logs made before this time (later than `from`)'),
    },
    where: (base, query) => logFilters(base, query),
    order: (query) => [['id', query.order as 'asc' | 'desc']],
  },
  // Admins record usage that no bridge reported (a machine without a bridge, a correction).
  create: {
    body: ResourceLogCreate,
    note: 'Without `type` the log is `allowed` (usage).',
    insert: (trx, { caller, body, at }) => createManualLog(trx, caller, body, at),
  },
  update: {
    body: ResourceLogUpdate,
    note: '`originalMember` keeps the member the log was first recorded for; sends resourceLog_updated.',
    columns: (body, row, { trx }) => logChanges(trx, row, body),
    written: (trx, _before, after) => logChanged(trx, after),
  },
  remove: {
    note: 'Not while its session runs (409). Sends resourceLog_deleted with the log as it was; charges made for it stay.',
    before: (trx, row) => logRemoved(trx, row),
    after: (trx, row) => refreshLastUsed(trx, row.resource),
  },
  // Deleting a log is not undone by anything else: the hub's own log keeps who did it.
  committed: (ctx, row, write) =>
    write === 'remove' &&
    ctx.logger.info({ resourceLog: row.id, resource: row.resource }, 'resource log deleted'),
  docs: {
    list: {
      summary: 'List resource logs',
      description: `Who used which resource when, and every denial with its reason, newest first (\`order=asc\` for oldest). Filters: \`resource\`, \`member\`, \`type\` (repeatable), \`status=active\` for sessions still running, \`from\` and \`until\` (ISO times) for the logs that overlap a period (a session begun before \`from\` that ran into it counts; \`until\` must be later than \`from\`); \`resolve=member\` replaces member ids by names. Members see their own logs. ${pagedNote}`,
    },
    get: {
      summary: 'Get a resource log',
      description: '`resolve=member` replaces the member id by the member’s name and number.',
    },
    create: {
      summary: 'Record a resource log',
      description: 'For usage no bridge reported: a machine without a bridge, or a correction.',
      errors: { 422: 'The member does not exist in this account.' },
      example: {
        resource: 7,
        type: 'allowed',
        member: 42,
        createdAt: '2026-11-21T14:00:00Z',
        stoppedAt: '2026-11-21T15:30:00Z',
        stopType: 'normal',
        notes: 'Used without the bridge while it was repaired',
      },
    },
    update: {
      summary: 'Correct a resource log',
      description:
        '`originalMember` keeps the member the log was first recorded for; sends `resourceLog_updated`.',
      errors: { 422: 'The member does not exist in this account, or `stoppedAt` is before `createdAt`.' },
      example: { lockVersion: 2, member: 42, stoppedAt: '2026-11-21T15:30:00Z', stopType: 'normal' },
    },
    remove: {
      summary: 'Delete a resource log',
      description: 'Sends `resourceLog_deleted` with the log as it was.',
      errors: { 409: 'The log’s session is still running (`data.runningSession`): stop it first.' },
    },
  },
});

export const resourceLogsRoutes = (ctx: HubServices): FastifyPluginAsyncZod =>
  collectionRoutes(ctx, resourceLogs);
