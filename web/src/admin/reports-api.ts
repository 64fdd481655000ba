/** The reports page's calls: the public /api/v1/reports operations, through the app's one `call`. */
import type {
  MembersReport,
  RefusalsReport,
  ReportInterval,
  ReportPeriod,
  RevenueReport,
  UsageReport,
} from '@makerspace/shared';
import { call } from '../api';
import { query } from './billing-api';

export type { MembersReport, RefusalsReport, ReportInterval, ReportPeriod, RevenueReport, UsageReport };

/** The range of every report; empty dates leave the hub's default (the last 30 days in the space). */
export interface ReportRange {
  from: string;
  until: string;
  interval: ReportInterval;
}

const get = <T>(report: string, r: ReportRange) => call<T>('GET', `/reports/${report}${query({ ...r })}`);

export const reportsApi = {
  usage: (r: ReportRange) => get<UsageReport>('usage', r),
  refusals: (r: ReportRange) => get<RefusalsReport>('refusals', r),
  members: (r: ReportRange) => get<MembersReport>('members', r),
  revenue: (r: ReportRange) => get<RevenueReport>('revenue', r),
};
