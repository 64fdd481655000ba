import type { Selectable, SelectQueryBuilder, Updateable } from 'kysely';
import type { Db } from '../db/crud.js';
import { rawRows } from '../db/fast-reads.js';
import type { Database, MemberPackagesTable, PackagePermissionsTable } from '../db/schema.js';

/**
 * The `packages` table, their `package_credits` and `package_permissions`, and the
 * `member_packages` that give them to members. Functions take the database (or a transaction)
 * first.
 */

export function packagesByIds(db: Db, ids: number[]) {
  return db.selectFrom('packages').selectAll().where('id', 'in', ids).execute();
}

/** The rows of packages (a query to narrow and page): of one account, and held by one member. */
export function packagesOf(db: Db, only: { account?: number; heldBy?: number }) {
  let query = db.selectFrom('packages');
  if (only.account !== undefined) query = query.where('packages.account', '=', only.account);
  const member = only.heldBy;
  if (member !== undefined) {
    query = query.where('packages.id', 'in', (eb) =>
      eb.selectFrom('member_packages').select('package').where('member', '=', member),
    );
  }
  return query;
}

/** The rows of a package's credits or permissions (a query to narrow and page). */
export function rowsOfPackage<T extends 'package_credits' | 'package_permissions'>(
  db: Db,
  table: T,
  packageId: number,
) {
  return (db.selectFrom(table) as SelectQueryBuilder<any, any, object>).where(
    `${table}.package`,
    '=',
    packageId as never,
  ) as unknown as SelectQueryBuilder<Database, T, object>;
}

/** A package's credits. */
export function creditsOfPackage(db: Db, packageId: number) {
  return db.selectFrom('package_credits').selectAll().where('package', '=', packageId).execute();
}

// ---- member packages -----------------------------------------------------------------------

/** Some member package of the package, if a member holds (or held) it. */
export function aHolderOf(db: Db, packageId: number) {
  return db.selectFrom('member_packages').select('id').where('package', '=', packageId).executeTakeFirst();
}

/** Every member package of an account, by id. */
/**
 * The account's member packages in id order, a page of `limit` after the id `after` (0: from the
 * first): the billing run reads them a page at a time, so its memory does not grow with them.
 */
export function memberPackagesOfAccount(db: Db, accountId: number, page: { after: number; limit: number }) {
  return db
    .selectFrom('member_packages')
    .selectAll()
    .where('account', '=', accountId)
    .where('id', '>', page.after)
    .orderBy('id')
    .limit(page.limit)
    .execute();
}

export async function updateMemberPackage(
  db: Db,
  id: number,
  changes: Updateable<MemberPackagesTable>,
): Promise<void> {
  await db.updateTable('member_packages').set(changes).where('id', '=', id).execute();
}

// ---- covering permissions ------------------------------------------------------------------

/** A permission of one of the member's packages, with the member package that gives it. */
export type CoveringPermission = Selectable<PackagePermissionsTable> & { memberPackage: number };

/**
 * The permissions of the member's packages active on `date` (space-local, fromDate <= date <=
 * untilDate) that cover the resource: everything, its resource type, or the resource itself.
 * Parameters: member, date, date, resource id, resource type (a null type matches nothing).
 */
const COVERING_PERMISSIONS =
  'select "pp".*, "mp"."id" as "memberPackage" from "member_packages" as "mp" inner join "package_permissions" as "pp" on "pp"."package" = "mp"."package" where "mp"."member" = ? and "mp"."fromDate" <= ? and ("mp"."untilDate" is null or "mp"."untilDate" >= ?) and ("pp"."type" = \'everything\' or ("pp"."type" = \'resource\' and "pp"."resource" = ?) or ("pp"."type" = \'resourceType\' and "pp"."resourceType" = ?)) order by "pp"."id"';

/**
 * The covering permissions' query as text and parameters, for the access policy's fast reads
 * (which run raw texts) as well as for coveringPermissions.
 */
export function coveringPermissionsQuery(
  memberId: number,
  resource: { id: number; type: number | null },
  date: string,
) {
  return { text: COVERING_PERMISSIONS, params: [memberId, date, date, resource.id, resource.type] };
}

/** The covering permissions on any handle, a transaction included (billing a stopped session). */
export function coveringPermissions(
  db: Db,
  memberId: number,
  resource: { id: number; type: number | null },
  date: string,
): Promise<CoveringPermission[]> {
  const query = coveringPermissionsQuery(memberId, resource, date);
  return rawRows<CoveringPermission>(db, query.text, query.params);
}

/** The packages these members hold or held, by start date. */
export function memberPackagesOfMembers(db: Db, memberIds: number[]) {
  return db
    .selectFrom('member_packages')
    .selectAll()
    .where('member', 'in', memberIds)
    .orderBy('fromDate')
    .orderBy('id')
    .execute();
}
