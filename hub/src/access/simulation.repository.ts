import type { Db } from '../db/crud.js';
import type { MemberRow, ResourceRow } from './policy.js';

/*
 * The reads of an access simulation, on the transaction that holds the proposed change (so the
 * rows after it are what the policy then sees).
 */

/** The account's members, or those of them with these ids. */
export async function simulatedMembers(db: Db, account: number, ids: number[] | null): Promise<MemberRow[]> {
  if (ids !== null && ids.length === 0) return [];
  let q = db.selectFrom('members').selectAll().where('account', '=', account);
  if (ids !== null) q = q.where('id', 'in', ids);
  return q.orderBy('id').execute();
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
export async function holdersOfPackage(db: Db, packageId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('member_packages')
    .select('member')
    .distinct()
    .where('package', '=', packageId)
    .execute();
  return rows.map((r) => r.member);
}

/** Members with a training of the course (any dates). */
export async function holdersOfCourse(db: Db, courseId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('member_trainings')
    .select('member')
    .distinct()
    .where('trainingCourse', '=', courseId)
    .execute();
  return rows.map((r) => r.member);
}

/** The package of a permission, the member of a member's package or training (null: none). */
export async function ownerOf(
  db: Db,
  table: 'package_permissions' | 'member_packages' | 'member_trainings',
  id: number,
): Promise<number | null> {
  if (table === 'package_permissions') {
    const row = await db
      .selectFrom('package_permissions')
      .select('package')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.package ?? null;
  }
  const row = await db.selectFrom(table).select('member').where('id', '=', id).executeTakeFirst();
  return row?.member ?? null;
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
