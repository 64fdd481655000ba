/** Problem reports' calls (public /api/v1 operations, docs/WEB.md), through the app's one `call`. */
import type { ProblemReportRecord, ProblemSeverity, ResourceTypeMaintainerRecord } from '@makerspace/shared';
import { call, callWithTotal } from './api';

export type { ProblemReportRecord, ProblemSeverity, ResourceTypeMaintainerRecord };

export const problemApi = {
  report: (resource: number, description: string, severity: ProblemSeverity) =>
    call<ProblemReportRecord>('POST', `/resources/${resource}/problem-reports`, { description, severity }),
  /** The photo's bytes as they are (the hub checks the type and strips the metadata). */
  putPhoto: (report: number, photo: Blob) =>
    call<ProblemReportRecord>('PUT', `/problem-reports/${report}/photo`, photo),
  open: (resource?: number) =>
    callWithTotal<ProblemReportRecord[]>(
      'GET',
      `/problem-reports?state=open&limit=100${resource ? `&resource=${resource}` : ''}`,
    ),
  resolve: (report: number, note: string) =>
    call<ProblemReportRecord>('POST', `/problem-reports/${report}/resolve`, { note }),
  /** Where the browser loads the photo from (the session cookie goes with it). */
  photoUrl: (report: number) => `/api/v1/problem-reports/${report}/photo`,
  maintainers: (type: number) =>
    call<ResourceTypeMaintainerRecord[]>('GET', `/resource-types/${type}/maintainers`),
  addMaintainer: (type: number, member: number) =>
    call<ResourceTypeMaintainerRecord>('POST', `/resource-types/${type}/maintainers`, { member }),
  removeMaintainer: (type: number, member: number) =>
    call<void>('DELETE', `/resource-types/${type}/maintainers/${member}`),
};
