import { z } from 'zod';
import { DateString, Id } from './common.js';
import { DenyReason } from '../enums.js';

/**
 * The report figures of the admin console (`GET /reports/usage`, `/reports/refusals`,
 * `/reports/members`, `/reports/revenue`). Each covers whole days of the space's time zone from
 * `from` to `until` (both included), cut into periods of a day, a week (Monday to Sunday) or a
 * calendar month of that zone; every series has one figure per period.
 */
export const ReportInterval = z.enum(['day', 'week', 'month']);
export type ReportInterval = z.infer<typeof ReportInterval>;

export const ReportQuery = z.object({
  from: DateString.optional().describe(
    'First day (YYYY-MM-DD, the space’s time zone); default: 29 days before until',
  ),
  until: DateString.optional().describe(
    'Last day, included (YYYY-MM-DD, the space’s time zone); default: today',
  ),
  interval: ReportInterval.default('day').describe(
    'Length of each period: day, week (Monday to Sunday) or month',
  ),
});
export type ReportQuery = z.input<typeof ReportQuery>;

export const ReportPeriod = z.object({
  from: DateString.describe('First day of the period inside the range'),
  until: DateString.describe('Last day of the period inside the range (included)'),
});
export type ReportPeriod = z.infer<typeof ReportPeriod>;

/** What every report answers besides its figures. */
const ReportFrame = {
  from: DateString,
  until: DateString,
  interval: ReportInterval,
  timeZone: z.string().describe('The space’s IANA time zone the days are counted in'),
  periods: z.array(ReportPeriod),
};

export const UsageReport = z.object({
  ...ReportFrame,
  resources: z.array(
    z.object({
      resource: Id,
      name: z.string(),
      sessions: z.array(z.number().int()).describe('Sessions started in each period (allowed logs)'),
      hours: z
        .array(z.number())
        .describe('Hours of use of the sessions started in each period (a running one up to now), to 0.01'),
      totalSessions: z.number().int(),
      totalHours: z.number(),
    }),
  ),
});
export type UsageReport = z.infer<typeof UsageReport>;

export const RefusalsReport = z.object({
  ...ReportFrame,
  total: z.number().int().describe('Refusals (denied logs) in the range'),
  reasons: z.array(
    z.object({
      reason: DenyReason.nullable().describe('null: the log names no reason'),
      counts: z.array(z.number().int()),
      total: z.number().int(),
    }),
  ),
});
export type RefusalsReport = z.infer<typeof RefusalsReport>;

export const MembersReport = z.object({
  ...ReportFrame,
  active: z.array(z.number().int()).describe('Members holding a package on at least one day of the period'),
  new: z.array(z.number().int()).describe('Members whose first package starts in the period'),
  ended: z
    .array(z.number().int())
    .describe('Members whose last package ends in the period (and who hold no later or open-ended one)'),
  totals: z.object({ active: z.number().int(), new: z.number().int(), ended: z.number().int() }),
});
export type MembersReport = z.infer<typeof MembersReport>;

const RevenueSeries = {
  amounts: z.array(z.string()).describe('Sum of the charges’ prices in each period (decimal strings)'),
  total: z.string(),
};

export const RevenueReport = z.object({
  ...ReportFrame,
  total: z.string().describe('Sum of the prices of every charge dated in the range'),
  packages: z.array(z.object({ package: Id, name: z.string(), ...RevenueSeries })),
  resources: z.array(z.object({ resource: Id, name: z.string(), ...RevenueSeries })),
  other: z.object(RevenueSeries).describe('Charges of neither a package nor a resource (added by hand)'),
});
export type RevenueReport = z.infer<typeof RevenueReport>;
