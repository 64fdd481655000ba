import { MembersReport, RefusalsReport, ReportQuery, RevenueReport, UsageReport } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { revenueReport } from '../reports/revenue-report.js';
import type { Db } from '../db/crud.js';
import { adminRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import type { Caller } from '../kernel/caller.js';
import { membersReport } from '../reports/members-report.js';
import { refusalsReport, usageReport } from '../reports/usage-report.js';
import { type ReportFrame, reportFrameFor } from '../reports/report-periods.js';

interface Report {
  path: string;
  summary: string;
  description: string;
  answer: z.ZodType;
  figures(db: Db, caller: Caller, frame: ReportFrame, now: Date): Promise<unknown>;
}

const range =
  'Covers whole days of the space’s time zone from `from` to `until` (both included; by default the 30 days up to today), cut into periods of a `day`, a `week` (Monday to Sunday) or a calendar `month` of that zone, the first and last cut to the range; every series has one figure per period. A range that ends before it starts, or of more than 400 periods, answers 400 naming `until`.';

const reports: Report[] = [
  {
    path: '/reports/usage',
    summary: 'Use of each resource per period: sessions and hours (admins)',
    description: `Counts the sessions (allowed resource logs) that started in each period and their hours, a running session up to now; every resource of the account has a row. ${range}`,
    answer: UsageReport,
    figures: usageReport,
  },
  {
    path: '/reports/refusals',
    summary: 'Refusals per period by reason (admins)',
    description: `Counts the denied resource logs of each period by their reason (\`noPackage\`, \`openingHours\`, ...), the most frequent reason first. ${range}`,
    answer: RefusalsReport,
    figures: refusalsReport,
  },
  {
    path: '/reports/members',
    summary: 'Active, new and ended members per period (admins)',
    description: `By their packages: active members hold a package on at least one day of the period; new ones start their first package in it; ended ones end their last package in it and hold no open-ended or later one. ${range}`,
    answer: MembersReport,
    figures: membersReport,
  },
  {
    path: '/reports/revenue',
    summary: 'Revenue per period by package and by resource (admins)',
    description: `Adds up the prices of the charges dated in each period (decimal strings, exact), by the package they bill (through the member package) and by the resource they bill (through the resource log or booking); charges of neither are \`other\`. ${range}`,
    answer: RevenueReport,
    figures: revenueReport,
  },
];

/** The report figures of the admin console's Reports page, for admins and any other client. */
export function reportsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    for (const report of reports) {
      adminRoute(
        app,
        'get',
        report.path,
        {
          tags: ['reports'],
          summary: report.summary,
          description: report.description,
          querystring: ReportQuery,
          response: { 200: report.answer },
        },
        async (request, caller) => {
          const now = ctx.clock.now();
          const frame = await reportFrameFor(ctx.db, caller, request.query, now);
          return report.figures(ctx.db, caller, frame, now);
        },
      );
    }
  };
}
