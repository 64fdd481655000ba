import {
  PROBLEM_PHOTO_MAX_BYTES,
  ProblemReportCreate,
  ProblemReportListQuery,
  ProblemReportRecord,
  ProblemReportResolve,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../errors.js';
import { callerOf } from '../http/auth.js';
import { sendPage } from '../http/list.js';
import { pagedNote } from '../http/openapi-doc.js';
import { pathId, ResourceParams } from '../http/params.js';
import { memberRoute } from '../http/route.js';
import { fileReply } from '../http/file-reply.js';
import type { HubServices } from '../http/services.js';
import { createdRoute } from '../http/route-kinds.js';
import {
  createProblemReport,
  getProblemReport,
  listProblemReports,
  problemPhoto,
  putProblemPhoto,
  resolveProblemReport,
} from '../problems/problem-reports.js';

const tags = ['problem-reports'];
const ReportParams = z.object({ reportId: pathId });
const photoTypes = ['image/jpeg', 'image/png'];
const maxMb = PROBLEM_PHOTO_MAX_BYTES / (1024 * 1024);
/** The photo's bytes, as the body of PUT /problem-reports/{id}/photo (checked by the rule, not here). */
const PhotoBody = z.any().meta({
  type: 'string',
  contentMediaType: 'image/jpeg',
  description: `The image file itself (JPEG or PNG, at most ${maxMb} MB), not JSON or multipart`,
});

/**
 * Problem reports (docs/DECISIONS.md, "Problem reports"): members report broken doors and
 * machines, an unsafe report takes the machine out of use, admins and the maintainers of its
 * resource type resolve it. Also the maintainers of resource types.
 */
export function problemReportsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    // The photo arrives as the request body's bytes; this plugin alone takes image bodies.
    const bytes = { parseAs: 'buffer' as const, bodyLimit: PROBLEM_PHOTO_MAX_BYTES };
    const asIs = (_request: unknown, body: string | Buffer, done: (err: null, body: unknown) => void) =>
      done(null, body);
    app.addContentTypeParser(/^image\//, bytes, asIs);
    app.addContentTypeParser('application/octet-stream', bytes, asIs);
    // A form upload names what to send instead of the generic 415.
    app.addContentTypeParser('multipart/form-data', (_request, _payload, done) =>
      done(
        new HttpError(
          415,
          'Send the photo’s bytes as the body (Content-Type image/jpeg or image/png), not a multipart form',
          {
            field: 'photo',
          },
        ),
        undefined,
      ),
    );

    createdRoute(
      app,
      'post',
      '/resources/:resourceId/problem-reports',
      {
        tags,
        summary: 'Report a problem with a resource',
        description:
          'Any member who sees the resource reports what is wrong with it. `severity: unsafe` takes the resource out of use at once: it is locked (`state: locked`) with a `lockReason` naming the report, a `resourceDisabled` resource log names the report, and its bridge gets the new configuration; switch-on and the machine page then say it is out of use and why. `info` only tells. Add a photo with PUT /problem-reports/{reportId}/photo. Emits problemReport_created. Answers 201 with the report.',
        params: ResourceParams,
        body: ProblemReportCreate,
        response: { 201: ProblemReportRecord },
        example: {
          description: 'The lid switch is broken: the laser fires with the lid open',
          severity: 'unsafe',
        },
      },
      (request, caller) => createProblemReport(ctx, caller, request.params.resourceId, request.body),
    );

    app.get(
      '/problem-reports',
      {
        schema: {
          tags,
          summary: 'List problem reports',
          description: `Newest first. Admins, and maintainers of any resource type, see every report of the account; other members their own. Filters: \`state\` (\`open\` or \`resolved\`), \`resource\`. ${pagedNote}`,
          querystring: ProblemReportListQuery,
          response: { 200: z.array(ProblemReportRecord) },
        },
      },
      async (request, reply) => {
        const { limit, offset } = request.query;
        const { records, total } = await listProblemReports(ctx.db, callerOf(request), request.query);
        return sendPage(request, reply, { limit, offset, total }, records, ctx.publicUrl);
      },
    );

    memberRoute(
      app,
      'get',
      '/problem-reports/:reportId',
      {
        tags,
        summary: 'Get a problem report',
        description:
          'Its reporter, admins and maintainers see it; for anyone else of the account it does not exist (404).',
        params: ReportParams,
        response: { 200: ProblemReportRecord },
      },
      (request, caller) => getProblemReport(ctx.db, caller, request.params.reportId),
    );

    memberRoute(
      app,
      'post',
      '/problem-reports/:reportId/resolve',
      {
        tags,
        summary: 'Resolve a problem report',
        description:
          'Admins, and maintainers of the resource’s type, close the report with a note of what was done. If the report took the resource out of use and the lock is still the report’s (nobody unlocked the resource or changed its `lockReason` meanwhile), the resource is unlocked with a `resourceEnabled` resource log naming the report, unless another open unsafe report of it is left: then it stays locked, its `lockReason` naming that report. Emits problemReport_resolved. Answers the report.',
        params: ReportParams,
        body: ProblemReportResolve,
        response: { 200: ProblemReportRecord },
        errors: {
          403: 'The caller is neither an admin nor a maintainer of the resource’s type (`data.reason`: `notMaintainer`).',
          409: 'The report is resolved already (`data.alreadyResolved`).',
        },
        errorExamples: {
          403: {
            message: 'Only admins and the maintainers of this resource type may resolve its problem reports',
            data: { reason: 'notMaintainer' },
          },
        },
        example: { note: 'Replaced the lid switch and tested it' },
      },
      (request, caller) => resolveProblemReport(ctx, caller, request.params.reportId, request.body.note),
    );

    app.put(
      '/problem-reports/:reportId/photo',
      {
        schema: {
          tags,
          summary: 'Add a photo to a problem report',
          description: `The body is the image file itself, with \`Content-Type: image/jpeg\` or \`image/png\` (\`application/octet-stream\` too: the type is read from the file's first bytes, not from the header). At most ${maxMb} MB. The hub stores it without its metadata (Exif, XMP, comments, text and time chunks: where and when it was taken, the camera), keeping only the orientation. A second photo replaces the first. The reporter, admins and maintainers of the resource's type may add one while the report is open. Answers the report.`,
          params: ReportParams,
          consumes: [...photoTypes, 'application/octet-stream'],
          body: PhotoBody,
          response: { 200: ProblemReportRecord },
          errors: {
            403: 'The caller did not make the report and is neither an admin nor a maintainer of its resource type (`data.reason`: `notReporter`).',
            409: 'The report is resolved already (`data.alreadyResolved`).',
            413: `The photo is larger than ${maxMb} MB.`,
            415: 'The body is not a JPEG or PNG image (by its first bytes), or not an image body at all.',
            422: 'The image is damaged or cut off (`data.field`: `photo`).',
          },
          errorExamples: {
            413: {
              message: `The photo is larger than ${maxMb} MB`,
              data: { field: 'photo', maxBytes: PROBLEM_PHOTO_MAX_BYTES },
            },
            415: {
              message: 'The photo must be a JPEG or PNG image',
              data: { field: 'photo', accepted: photoTypes },
            },
            422: { message: 'not a complete JPEG image: cut off in image data', data: { field: 'photo' } },
          },
        },
        bodyLimit: PROBLEM_PHOTO_MAX_BYTES,
      },
      async (request) => putProblemPhoto(ctx, callerOf(request), request.params.reportId, request.body),
    );

    app.get(
      '/problem-reports/:reportId/photo',
      {
        schema: {
          tags,
          summary: 'Get the photo of a problem report',
          description:
            'The image as stored (JPEG or PNG, without metadata), with its content type. Only for those who see the report: members of its account (its reporter, admins, maintainers).',
          params: ReportParams,
          produces: photoTypes,
          errors: { 404: 'The report has no photo, or the caller does not see the report.' },
        },
      },
      async (request, reply) => {
        const photo = await problemPhoto(ctx.db, callerOf(request), request.params.reportId);
        const ext = photo.contentType === 'image/png' ? 'png' : 'jpg';
        const name = `problem-report-${request.params.reportId}.${ext}`;
        return fileReply(reply, {
          type: photo.contentType,
          name,
          inline: true,
          cache: 'private, no-store',
        }).send(photo.data);
      },
    );
  };
}
