/** The resources page's calls: public /api/v1 operations, through the app's one `call`. */
import type { ResourceRecord, ResourceTypeRecord, SpaceRecord } from '@makerspace/shared';
import { call } from '../api';

export type { ResourceTypeRecord, SpaceRecord };

/** What the resource form reads of a training course (GET /training-courses). */
export interface TrainingCourseRecord {
  id: number;
  title: string;
  state: string;
  resources: number[];
  lockVersion: number;
}

export const resourcesApi = {
  spaces: () => call<SpaceRecord[]>('GET', '/spaces?limit=1000'),
  resource: (id: number) => call<ResourceRecord>('GET', `/resources/${id}`),
  courses: () => call<TrainingCourseRecord[]>('GET', '/training-courses?limit=1000'),
  /** A course unlocks the resources in its list: the resource form adds or takes out its own. */
  setCourseResources: (c: TrainingCourseRecord, resources: number[]) =>
    call<TrainingCourseRecord>('PUT', `/training-courses/${c.id}`, { resources, lockVersion: c.lockVersion }),
  createResource: (body: Record<string, unknown>) => call<ResourceRecord>('POST', '/resources', body),
  updateResource: (r: ResourceRecord, body: Record<string, unknown>) =>
    call<ResourceRecord>('PUT', `/resources/${r.id}`, { ...body, lockVersion: r.lockVersion }),
  types: () => call<ResourceTypeRecord[]>('GET', '/resource-types?limit=1000'),
  createType: (name: string) => call<ResourceTypeRecord>('POST', '/resource-types', { name }),
  renameType: (t: ResourceTypeRecord, name: string) =>
    call<ResourceTypeRecord>('PUT', `/resource-types/${t.id}`, { name, lockVersion: t.lockVersion }),
  deleteType: (id: number) => call<void>('DELETE', `/resource-types/${id}`),
};
