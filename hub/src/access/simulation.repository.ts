import {
  allWhere,
  type Db,
  firstWhere,
  type MemberTable,
  selectWhere,
  type TableRow,
  type Where,
} from '../db/crud.js';
import type { MemberRow, ResourceRow } from './policy.js';

/*
 * The reads of an access simulation, on the transaction that holds the proposed change (so the
 * rows after it are what the policy then sees).
 */

/** The account's members, or those of them with these ids. */
export async function simulatedMembers(db: Db, account: number, ids: number[] | null): Promise<MemberRow[]> {
  if (ids !== null && ids.length === 0) return [];
  let q = db.selectFrom('members').selectAll().where('account', '=', account);
  // Many ids (a package everyone holds): the account's members, filtered here, cost less than `in (...)`.
  if (ids !== null && ids.length <= 100) q = q.where('id', 'in', ids);
  const rows = await q.orderBy('id').execute();
  if (ids === null || ids.length <= 100) return rows;
  const wanted = new Set(ids);
  return rows.filter((m) => wanted.has(m.id));
}

/** The account's resources, or those of one space. */
export async function simulatedResources(
  db: Db,
  account: number,
  space: number | null,
): Promise<ResourceRow[]> {
  let q = db.selectFrom('resources').selectAll().where('account', '=', account);
  if (space !== null) q = q.where('space', '=', space);
  return q.orderBy('id').execute();
}

/** Members who hold (or held, or will hold) the package. */
export function holdersOfPackage(db: Db, packageId: number): Promise<number[]> {
  return holders(db, 'member_packages', 'package', packageId);
}

/** Members with a training of the course (any dates). */
export function holdersOfCourse(db: Db, courseId: number): Promise<number[]> {
  return holders(db, 'member_trainings', 'trainingCourse', courseId);
}

/** The members of the rows of a member's packages or trainings whose `column` is `id`, each once. */
async function holders(
  db: Db,
  table: 'member_packages' | 'member_trainings',
  column: 'package' | 'trainingCourse',
  id: number,
): Promise<number[]> {
  const rows = await db.selectFrom(table).select('member').distinct().where(column, '=', id).execute();
  return rows.map((r) => r.member);
}

/** The package of a permission, the member of a member's package or training (null: none). */
export async function ownerOf(
  db: Db,
  table: 'package_permissions' | 'member_packages' | 'member_trainings',
  id: number,
): Promise<number | null> {
  if (table === 'package_permissions') {
    return (await firstWhere(db, table, { id }, ['package']))?.package ?? null;
  }
  return (await firstWhere(db, table, { id }, ['member']))?.member ?? null;
}

/** The space's time zone, or the account's first space's (UTC when unset). */
export async function simulationZone(
  db: Db,
  account: number,
  space: number | null,
): Promise<{ space: number | null; zone: string }> {
  let q = db.selectFrom('spaces').select(['id', 'timezone']).where('account', '=', account);
  if (space !== null) q = q.where('id', '=', space);
  const row = await q.orderBy('id').executeTakeFirst();
  return { space: row?.id ?? null, zone: row?.timezone || 'UTC' };
}

/** What the access policy reads besides the member's and the resource's rows, read at once for a simulation. */
export interface PolicyInputRows {
  memberPackages: { member: number; package: number; fromDate: string; untilDate: string | null }[];
  memberTrainings: {
    member: number;
    trainingCourse: number;
    fromDate: string | null;
    untilDate: string | null;
  }[];
  bookings: { resource: number; member: number; fromDateTime: string; untilDateTime: string }[];
  wrongCodes: { resource: number; member: number | null; at: string }[];
  checkIns: { member: number; space: number }[];
  /** The resources of the active training courses. */
  courseResources: { course: number; resource: number }[];
  /** Package permissions that name one resource. */
  resourcePermissions: { id: number; resource: number | null }[];
  /** The time tables of package permissions with their own times. */
  permissionTimes: { times: string }[];
  spaces: { id: number; timezone: string | null }[];
  openingHours: { space: number; fromTime: string; untilTime: string }[];
  holidays: { space: number; fromDateTime: string; untilDateTime: string }[];
}

const chunks = <T>(items: T[], size = 500): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/**
 * The policy's inputs for these members and resources, on the transaction (before or after the
 * change): bookings not ended by `from`, wrong switch-on codes entered after `attemptsAfter`.
 */
export async function policyInputRows(
  db: Db,
  account: number,
  memberIds: number[],
  resourceIds: number[],
  spaceIds: number[],
  from: string,
  attemptsAfter: string,
): Promise<PolicyInputRows> {
  const byMembers = async <T>(read: (ids: number[]) => Promise<T[]>) =>
    (await Promise.all(chunks(memberIds).map(read))).flat();
  /** `columns` of the rows of a member's table (packages, trainings) that these members hold. */
  const heldByMembers = <T extends MemberTable, C extends keyof TableRow<T> & string>(
    table: T,
    columns: readonly C[],
  ) => byMembers((ids) => selectWhere(db, table, { member: ids } as Where<T>, { columns }));
  const byResources = async <T>(read: (ids: number[]) => Promise<T[]>) =>
    (await Promise.all(chunks(resourceIds).map(read))).flat();
  const spaces = spaceIds.length === 0 ? [0] : spaceIds;
  return {
    memberPackages: await heldByMembers('member_packages', ['member', 'package', 'fromDate', 'untilDate']),
    memberTrainings: await heldByMembers('member_trainings', [
      'member',
      'trainingCourse',
      'fromDate',
      'untilDate',
    ]),
    bookings: await byResources((ids) =>
      db
        .selectFrom('bookings')
        .select(['resource', 'member', 'fromDateTime', 'untilDateTime'])
        .where('resource', 'in', ids)
        .where('state', '=', 'confirmed')
        .where('untilDateTime', '>', from)
        .execute(),
    ),
    wrongCodes: await byResources((ids) =>
      db
        .selectFrom('access_attempts')
        .select(['resource', 'member', 'at'])
        .where('resource', 'in', ids)
        .where('kind', '=', 'wrongCode')
        .where('at', '>', attemptsAfter)
        .execute(),
    ),
    checkIns: await selectWhere(
      db,
      'check_ins',
      { state: 'in', space: spaces },
      { columns: ['member', 'space'] },
    ),
    courseResources: await byResources((ids) =>
      db
        .selectFrom('training_course_resources as r')
        .innerJoin('training_courses as c', 'c.id', 'r.course')
        .select(['r.course', 'r.resource'])
        .where('r.resource', 'in', ids)
        .where('c.state', '=', 'active')
        .execute(),
    ),
    resourcePermissions: await byResources((ids) =>
      selectWhere(
        db,
        'package_permissions',
        { type: 'resource', resource: ids },
        { columns: ['id', 'resource'] },
      ),
    ),
    permissionTimes: await allWhere(db, 'package_permissions', { account, timeType: 'custom' }, ['times']),
    spaces: await selectWhere(db, 'spaces', { id: spaces }, { columns: ['id', 'timezone'] }),
    openingHours: await selectWhere(
      db,
      'opening_hours',
      { space: spaces },
      { columns: ['space', 'fromTime', 'untilTime'] },
    ),
    holidays: await selectWhere(
      db,
      'holidays',
      { space: spaces },
      { columns: ['space', 'fromDateTime', 'untilDateTime'] },
    ),
  };
}
