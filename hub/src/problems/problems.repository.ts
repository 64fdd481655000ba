import type { Insertable, Selectable } from 'kysely';
import { allWhere, type Db, firstWhere, insertReturning, updateWhere } from '../db/crud.js';
import { isPostgres } from '../db/fast-reads.js';
import type { ProblemReportPhotosTable, ProblemReportsTable } from '../db/schema.js';

/* The tables of problem reports: problem_reports, problem_report_photos, resource_type_maintainers. */

export type ProblemReportRow = Selectable<ProblemReportsTable>;

/** A report with the names its record embeds (its resource, its reporter, who resolved it). */
export type ProblemReportView = ProblemReportRow & {
  resourceName: string;
  resourceType: number | null;
  memberFirstName: string | null;
  memberLastName: string | null;
  resolverFirstName: string | null;
  resolverLastName: string | null;
  photoType: string | null;
  photoBytes: number | null;
};

export interface ReportFilter {
  /** null: every account (superusers). */
  account: number | null;
  /** Only this member's reports. */
  member?: number;
  state?: string;
  resource?: number;
}

function reportViews(db: Db) {
  return db
    .selectFrom('problem_reports as p')
    .innerJoin('resources as r', 'r.id', 'p.resource')
    .leftJoin('members as m', 'm.id', 'p.member')
    .leftJoin('members as s', 's.id', 'p.resolvedBy')
    .leftJoin('problem_report_photos as f', 'f.report', 'p.id')
    .selectAll('p')
    .select([
      'r.name as resourceName',
      'r.type as resourceType',
      'm.firstName as memberFirstName',
      'm.lastName as memberLastName',
      's.firstName as resolverFirstName',
      's.lastName as resolverLastName',
      'f.contentType as photoType',
      'f.bytes as photoBytes',
    ]);
}

function filtered(db: Db, filter: ReportFilter) {
  let query = reportViews(db);
  if (filter.account !== null) query = query.where('p.account', '=', filter.account);
  if (filter.member !== undefined) query = query.where('p.member', '=', filter.member);
  if (filter.state !== undefined) query = query.where('p.state', '=', filter.state);
  if (filter.resource !== undefined) query = query.where('p.resource', '=', filter.resource);
  return query;
}

/** A page of reports, newest first. */
export function reportViewsWhere(
  db: Db,
  filter: ReportFilter,
  page: { limit: number; offset: number },
): Promise<ProblemReportView[]> {
  return filtered(db, filter)
    .orderBy('p.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute() as Promise<ProblemReportView[]>;
}

export async function countReportsWhere(db: Db, filter: ReportFilter): Promise<number> {
  let query = db.selectFrom('problem_reports as p').select((eb) => eb.fn.countAll<number>().as('n'));
  if (filter.account !== null) query = query.where('p.account', '=', filter.account);
  if (filter.member !== undefined) query = query.where('p.member', '=', filter.member);
  if (filter.state !== undefined) query = query.where('p.state', '=', filter.state);
  if (filter.resource !== undefined) query = query.where('p.resource', '=', filter.resource);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

export function reportView(db: Db, id: number): Promise<ProblemReportView | undefined> {
  return reportViews(db).where('p.id', '=', id).executeTakeFirst() as Promise<ProblemReportView | undefined>;
}

/** A report, its row locked until the transaction ends (PostgreSQL). */
export function reportRowForUpdate(db: Db, id: number): Promise<ProblemReportRow | undefined> {
  let query = db.selectFrom('problem_reports').selectAll().where('id', '=', id);
  if (isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function insertReport(db: Db, row: Insertable<ProblemReportsTable>): Promise<ProblemReportRow> {
  return insertReturning(db, 'problem_reports', row);
}

export async function updateReport(
  db: Db,
  id: number,
  values: Partial<Omit<ProblemReportRow, 'id' | 'account' | 'resource'>>,
): Promise<void> {
  await updateWhere(db, 'problem_reports', { id }, values);
}

/** The other open unsafe reports of a resource, oldest first. */
export function openUnsafeReports(db: Db, resource: number, except: number): Promise<ProblemReportRow[]> {
  return db
    .selectFrom('problem_reports')
    .selectAll()
    .where('resource', '=', resource)
    .where('state', '=', 'open')
    .where('severity', '=', 'unsafe')
    .where('id', '!=', except)
    .orderBy('id')
    .execute();
}

// ---- photos ----

export function reportPhoto(
  db: Db,
  report: number,
): Promise<Selectable<ProblemReportPhotosTable> | undefined> {
  return firstWhere(db, 'problem_report_photos', { report });
}

/** Stores the report's photo, replacing the one it had. */
export async function putReportPhoto(db: Db, row: Insertable<ProblemReportPhotosTable>): Promise<void> {
  await db.deleteFrom('problem_report_photos').where('report', '=', row.report).execute();
  await db.insertInto('problem_report_photos').values(row).execute();
}

// ---- maintainers ----

/** Ids of the resource types a member maintains. */
export async function typesMaintainedBy(db: Db, member: number): Promise<number[]> {
  return (await allWhere(db, 'resource_type_maintainers', { member }, ['type'])).map((r) => r.type);
}

/** Active members of the account (`m`): ids and e-mail addresses, by id, to narrow further. */
function activeAddresses(db: Db, account: number) {
  return db
    .selectFrom('members as m')
    .select(['m.id as memberId', 'm.emailAddress'])
    .where('m.account', '=', account)
    .where('m.state', '=', 'active')
    .orderBy('m.id');
}

/** Active members of the account who maintain this resource type: ids and e-mail addresses, by id. */
export function activeMaintainerAddresses(db: Db, account: number, type: number) {
  return activeAddresses(db, account)
    .innerJoin('resource_type_maintainers as t', 't.member', 'm.id')
    .where('t.type', '=', type)
    .execute();
}

/** Active admins and owners of the account: ids and e-mail addresses, by id. */
export function activeAdminAddresses(db: Db, account: number) {
  return activeAddresses(db, account).where('m.privileges', 'in', ['admin', 'owner']).execute();
}

/** A resource's account and type (for the recipients of its reports). */
export function resourceOfReport(db: Db, resource: number) {
  return db
    .selectFrom('resources')
    .select(['id', 'account', 'type'])
    .where('id', '=', resource)
    .executeTakeFirst();
}
