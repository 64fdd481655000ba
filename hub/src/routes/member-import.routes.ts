import { MemberImportQuery, MemberImportResult } from '@makerspace/shared';
import { type ZodTypeProvider, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../errors.js';
import { callerOf } from '../http/auth.js';
import type { HubServices } from '../http/services.js';
import { importMembersCsv } from '../import/members-csv.js';
import { adminOnly } from '../kernel/caller.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/** The largest spreadsheet taken: some 20,000 members with every field. */
export const MEMBER_CSV_MAX_BYTES = 5 * 1024 * 1024;
const csvTypes = [
  'text/csv',
  'text/plain',
  'application/csv',
  'application/vnd.ms-excel',
  'application/octet-stream',
];

/** Members from a spreadsheet (import/members-csv.ts), the admin console's upload on the Members page. */
export function memberImportRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const scope = app.withTypeProvider<ZodTypeProvider>();
    scope.addContentTypeParser(
      csvTypes,
      { parseAs: 'buffer', bodyLimit: MEMBER_CSV_MAX_BYTES },
      (_r, body, done) => done(null, body),
    );
    scope.post(
      '/members/import',
      {
        schema: {
          tags: ['members'],
          summary: 'Add members from a spreadsheet',
          description:
            'The body is a CSV file as a spreadsheet saves it (`text/csv`): UTF-8 or Windows-1252 (read as UTF-8 when it is valid UTF-8), separated by `,` or `;` (whichever the heading line has more of), with a heading line whose columns are matched to member fields by name, in English or German (`First name`/`Vorname`, `E-mail`, `Member number`/`Mitgliedsnummer`, `Date of birth`/`Geburtsdatum`, ...; other columns are not imported). Dates are read as the space’s locale writes them (31.12.2025 for `de`, 12/31/2025 for `en-US`) or as ISO 8601. Every row is checked first: while one is wrong nothing is imported, unless `skipBadRows=true`; `dryRun=true` only checks and answers the preview. A row whose e-mail address is already a member’s is left as it is. The answer names each wrong row by its line in the file.',
          admins: true,
          querystring: MemberImportQuery,
          consumes: csvTypes,
          body: z.file(),
          response: { 200: MemberImportResult },
          errors: {
            413: `The file is larger than ${MEMBER_CSV_MAX_BYTES / 1024 / 1024} MB.`,
            415: 'The body is not sent as `text/csv` (or `application/octet-stream`).',
          },
        },
        bodyLimit: MEMBER_CSV_MAX_BYTES,
        // The bytes are read by importMembersCsv (encoding, separator), not by a schema.
        validatorCompiler: (route) =>
          route.httpPart === 'body'
            ? (body: unknown) => ({ value: body })
            : validatorCompiler(route as never),
      },
      async (request) => {
        const caller = adminOnly(callerOf(request));
        const bytes: unknown = request.body;
        if (!Buffer.isBuffer(bytes) || bytes.length === 0)
          throw new HttpError(415, 'Send the CSV file as the body, with content type text/csv');
        const result = await importMembersCsv(ctx, caller, bytes, request.query);
        if (result.imported) ctx.caches.counts.touch('members');
        return result;
      },
    );
  };
}
