/** The packages and trainings pages' calls: public /api/v1 operations, through the app's one `call`. */
import type {
  MemberPackagePreview,
  MemberPackageRecord,
  MemberTrainingRecord,
  PackageRecord,
  PermissionTime,
  ResourceRecord,
  ResourceTypeRecord,
  SpaceRecord,
  TrainingCourseRecord,
} from '@makerspace/shared';
import { call, callWithTotal } from '../api';
import { wall } from './zoned';
import { t, tOr } from '../i18n/i18n';

export type {
  MemberPackagePreview,
  MemberTrainingRecord,
  PackageRecord,
  PermissionTime,
  ResourceRecord,
  ResourceTypeRecord,
  TrainingCourseRecord,
};

export interface PermissionRecord {
  id: number;
  package: number;
  type: 'everything' | 'resourceType' | 'resource';
  resourceType: number | null;
  resource: number | null;
  timeType: 'always' | 'openingHours' | 'custom';
  times: PermissionTime[];
  usageFeeDiscountPercent: string;
  bookingFeeDiscountPercent: string;
  lockVersion: number;
}

export interface CreditRecord {
  id: number;
  package: number;
  scope: 'global' | 'usage' | 'booking';
  amount: string;
  period: 'once' | 'day' | 'week' | 'month' | 'year';
  lockVersion: number;
}

export type MemberPackage = MemberPackageRecord & { _embedded?: { package?: PackageRecord | null } };

const spaceDays = new Map<number, Promise<string>>();

export const packagesApi = {
  packages: () => call<PackageRecord[]>('GET', '/packages?limit=1000&embed=memberCount'),
  createPackage: (body: Record<string, unknown>) => call<PackageRecord>('POST', '/packages', body),
  updatePackage: (p: PackageRecord, body: Record<string, unknown>) =>
    call<PackageRecord>('PUT', `/packages/${p.id}`, { ...body, lockVersion: p.lockVersion }),

  permissions: (pkg: number) => call<PermissionRecord[]>('GET', `/packages/${pkg}/permissions?limit=1000`),
  createPermission: (pkg: number, body: Record<string, unknown>) =>
    call<PermissionRecord>('POST', `/packages/${pkg}/permissions`, body),
  updatePermission: (p: PermissionRecord, body: Record<string, unknown>) =>
    call<PermissionRecord>('PUT', `/packages/${p.package}/permissions/${p.id}`, {
      ...body,
      lockVersion: p.lockVersion,
    }),
  deletePermission: (p: PermissionRecord) =>
    call<void>('DELETE', `/packages/${p.package}/permissions/${p.id}`),

  credits: (pkg: number) => call<CreditRecord[]>('GET', `/packages/${pkg}/credits?limit=1000`),
  /** A credit is created with defaults (no body), then set with PUT. */
  async createCredit(pkg: number, body: Record<string, unknown>) {
    const created = await call<CreditRecord>('POST', `/packages/${pkg}/credits`);
    try {
      return await packagesApi.updateCredit(created, body);
    } catch (err) {
      await packagesApi.deleteCredit(created).catch(() => {});
      throw err;
    }
  },
  updateCredit: (c: CreditRecord, body: Record<string, unknown>) =>
    call<CreditRecord>('PUT', `/packages/${c.package}/credits/${c.id}`, {
      ...body,
      lockVersion: c.lockVersion,
    }),
  deleteCredit: (c: CreditRecord) => call<void>('DELETE', `/packages/${c.package}/credits/${c.id}`),

  resources: () => call<ResourceRecord[]>('GET', '/resources?limit=1000'),
  resourceTypes: () => call<ResourceTypeRecord[]>('GET', '/resource-types?limit=1000'),

  memberPackages: (member: number) =>
    call<MemberPackage[]>('GET', `/members/${member}/packages?embed=package&limit=1000`),
  previewMemberPackage: (member: number, body: Record<string, unknown>) =>
    call<MemberPackagePreview>('POST', `/members/${member}/packages/preview`, body),
  giveMemberPackage: (member: number, body: Record<string, unknown>) =>
    call<MemberPackageRecord>('POST', `/members/${member}/packages`, body),
  endMemberPackage: (mp: MemberPackageRecord, untilDate: string) =>
    call<MemberPackageRecord>('PUT', `/members/${mp.member}/packages/${mp.id}`, {
      untilDate,
      lockVersion: mp.lockVersion,
    }),

  courses: () => call<TrainingCourseRecord[]>('GET', '/training-courses?limit=1000'),
  createCourse: (body: Record<string, unknown>) =>
    call<TrainingCourseRecord>('POST', '/training-courses', body),
  updateCourse: (c: TrainingCourseRecord, body: Record<string, unknown>) =>
    call<TrainingCourseRecord>('PUT', `/training-courses/${c.id}`, { ...body, lockVersion: c.lockVersion }),
  deleteCourse: (c: TrainingCourseRecord) => call<void>('DELETE', `/training-courses/${c.id}`),
  memberTrainings: (member: number) =>
    call<MemberTrainingRecord[]>('GET', `/members/${member}/trainings?limit=1000`),
  recordTraining: (member: number, body: Record<string, unknown>) =>
    call<MemberTrainingRecord>('POST', `/members/${member}/trainings`, body),
  deleteTraining: (t: MemberTrainingRecord) => call<void>('DELETE', `/members/${t.member}/trainings/${t.id}`),
  /** Trainings whose last valid day is between the two dates (inclusive), soonest first. */
  expiring: (from: string, to: string) =>
    callWithTotal<MemberTrainingRecord[]>(
      'GET',
      `/member-trainings?untilFrom=${from}&untilTo=${to}&embed=member&limit=200`,
    ),

  /** Today in a space's time zone (asked once per space). */
  spaceToday(space: number): Promise<string> {
    let day = spaceDays.get(space);
    if (!day) {
      day = call<SpaceRecord>('GET', `/spaces/${space}`)
        .then((s) => wall(new Date(), s.timezone).date)
        .catch(() => wall(new Date(), Intl.DateTimeFormat().resolvedOptions().timeZone).date);
      spaceDays.set(space, day);
    }
    return day;
  },
};

export const periodNames: Record<string, string> = {
  once: 'once',
  day: 'a day',
  week: 'a week',
  month: 'a month',
  year: 'a year',
};

/** "1 year", "6 months", "no expiry" */
export function validityText(c: TrainingCourseRecord): string {
  if (!c.defaultDuration || !c.defaultDurationUnit) return t('trainings.noExpiry');
  return tOr(`admin.validity.${c.defaultDurationUnit}`, `${c.defaultDuration} ${c.defaultDurationUnit}`, {
    count: c.defaultDuration,
  });
}
