import { z } from 'zod';
import { Id, Timestamp } from './common.js';

/**
 * Problem reports (docs/DECISIONS.md, "Problem reports"): a member tells the space that a door or
 * machine is broken; an `unsafe` one takes the resource out of use at once, until an admin or a
 * maintainer of its resource type resolves the report.
 */

export const ProblemSeverity = z
  .enum(['info', 'unsafe'])
  .describe(
    '`unsafe` locks the resource at once (out of use until the report is resolved); `info` only tells',
  );
export type ProblemSeverity = z.infer<typeof ProblemSeverity>;

export const ProblemState = z.enum(['open', 'resolved']);
export type ProblemState = z.infer<typeof ProblemState>;

/** The largest photo the hub stores (bytes). */
export const PROBLEM_PHOTO_MAX_BYTES = 5 * 1024 * 1024;

export const ProblemReportCreate = z.strictObject({
  description: z
    .string()
    .trim()
    .min(1, 'say what is wrong')
    .max(4000)
    .describe('What is wrong, in the member’s words'),
  severity: ProblemSeverity,
});

export const ProblemReportResolve = z.strictObject({
  note: z
    .string()
    .trim()
    .min(1, 'say what was done')
    .max(4000)
    .describe('What was done about it (shown with the report)'),
});

export const ProblemReportListQuery = z.object({
  state: ProblemState.optional().describe('Only open or only resolved reports'),
  resource: Id.optional().describe('Only the reports of this resource'),
  limit: z.number().int().min(1).max(1000).default(50).describe('Records per page (1-1000)'),
  offset: z.number().int().min(0).default(0).describe('Records to skip'),
});

const Named = z.object({ id: Id, firstName: z.string(), lastName: z.string().nullable() });

export const ProblemReportRecord = z.object({
  id: Id,
  account: Id,
  resource: Id,
  member: Id.nullable().describe('Who reported it (null once that member is deleted)'),
  description: z.string(),
  severity: ProblemSeverity,
  state: ProblemState,
  lockedResource: z
    .boolean()
    .describe('The resource is (or was, until the report was resolved) out of use because of this report'),
  photo: z
    .object({ contentType: z.enum(['image/jpeg', 'image/png']), bytes: z.number().int() })
    .nullable()
    .describe('The photo, if one was added: GET /problem-reports/{id}/photo'),
  resolvedAt: Timestamp.nullable(),
  resolvedBy: Id.nullable(),
  resolutionNote: z.string().nullable(),
  unlockedResource: z.boolean().describe('Resolving the report put the resource back into use'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  _embedded: z.object({
    resource: z.object({ id: Id, name: z.string(), type: Id.nullable() }),
    member: Named.nullable(),
    resolvedBy: Named.nullable(),
  }),
});
export type ProblemReportRecord = z.infer<typeof ProblemReportRecord>;

export const ResourceTypeMaintainerCreate = z.strictObject({
  member: Id.describe('The member who may list and resolve the problem reports of this type’s resources'),
});

export const ResourceTypeMaintainerRecord = z.object({
  resourceType: Id,
  member: Id,
  createdAt: Timestamp,
  createdBy: Id.nullable(),
  _embedded: z.object({ member: Named }).optional(),
});
export type ResourceTypeMaintainerRecord = z.infer<typeof ResourceTypeMaintainerRecord>;
