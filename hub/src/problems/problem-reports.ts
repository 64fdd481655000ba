import {
  PROBLEM_PHOTO_MAX_BYTES,
  type ProblemReportRecord,
  type ProblemSeverity,
  type ProblemState,
} from '@makerspace/shared';
import type { HubContext } from '../context.js';
import type { Db } from '../db/crud.js';
import { emitEvent } from '../db/outbox.js';
import { conflict, forbidden, HttpError, notFound, unprocessable } from '../errors.js';
import { type Caller, accountOf, isAdmin, seesAccount } from '../kernel/caller.js';
import { holdResource, lockResourceFor, passOnLock } from '../resources/problem-locks.js';
import { findResource, resourceEventRecordById } from '../resources/resources.js';
import { DamagedPhotoError, photoType, stripPhoto } from './photos.js';
import {
  countReportsWhere,
  insertReport,
  openUnsafeReports,
  type ProblemReportRow,
  type ProblemReportView,
  putReportPhoto,
  type ReportFilter,
  reportPhoto,
  reportRowForUpdate,
  reportView,
  reportViewsWhere,
  typesMaintainedBy,
  updateReport,
} from './problems.repository.js';

/**
 * Problem reports (docs/DECISIONS.md, "Problem reports"). Any member who sees a resource reports
 * a problem with it; an `unsafe` one locks the resource at once (the admin's lock, with a lock
 * reason naming the report), and resolving the report unlocks it again if the lock is still the
 * report's and no other open unsafe report of the resource is left. Admins see and resolve
 * every report of their account; maintainers (of any resource type) see them all and resolve
 * those of the types they maintain; other members see their own.
 */

const named = (id: number | null, firstName: string | null, lastName: string | null) =>
  id !== null && firstName !== null ? { id, firstName, lastName } : null;

export function problemReportRecord(view: ProblemReportView): ProblemReportRecord {
  return {
    id: view.id,
    account: view.account,
    resource: view.resource,
    member: view.member,
    description: view.description,
    severity: view.severity as ProblemSeverity,
    state: view.state as ProblemState,
    lockedResource: Number(view.lockedResource) === 1,
    photo:
      view.photoType !== null
        ? { contentType: view.photoType as 'image/jpeg' | 'image/png', bytes: Number(view.photoBytes) }
        : null,
    resolvedAt: view.resolvedAt,
    resolvedBy: view.resolvedBy,
    resolutionNote: view.resolutionNote,
    unlockedResource: Number(view.unlockedResource) === 1,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    _embedded: {
      resource: { id: view.resource, name: view.resourceName, type: view.resourceType },
      member: named(view.member, view.memberFirstName, view.memberLastName),
      resolvedBy: named(view.resolvedBy, view.resolverFirstName, view.resolverLastName),
    },
  };
}

async function recordOf(db: Db, id: number): Promise<ProblemReportRecord> {
  const view = await reportView(db, id);
  if (!view) throw notFound('Problem report');
  return problemReportRecord(view);
}

/** The lock reason a report gives its resource: members read it on the machine page. */
export function reportLockReason(report: Pick<ProblemReportRow, 'id' | 'description'>): string {
  const text = report.description.replace(/\s+/g, ' ').trim();
  const head = `Out of use: reported unsafe in problem report #${report.id}: `;
  const room = 500 - head.length;
  return head + (text.length > room ? `${text.slice(0, room - 1)}…` : text);
}

/** Does the caller see every report of the account (an admin, or a maintainer of some type)? */
async function seesAllReports(db: Db, caller: Caller): Promise<boolean> {
  if (isAdmin(caller)) return true;
  return caller.memberId > 0 && (await typesMaintainedBy(db, caller.memberId)).length > 0;
}

/** The report as the caller sees it, or 404. */
async function visibleReport(db: Db, caller: Caller, id: number): Promise<ProblemReportView> {
  const view = await reportView(db, id);
  if (!view || !seesAccount(caller, view.account)) throw notFound('Problem report');
  if (view.member === caller.memberId && caller.memberId > 0) return view;
  if (!(await seesAllReports(db, caller))) throw notFound('Problem report');
  return view;
}

/** May the caller resolve reports of this resource type (admins; its maintainers)? */
async function mayResolve(db: Db, caller: Caller, resourceType: number | null): Promise<boolean> {
  if (isAdmin(caller)) return true;
  if (resourceType === null || caller.memberId <= 0) return false;
  return (await typesMaintainedBy(db, caller.memberId)).includes(resourceType);
}

const emitReport = (
  trx: Db,
  type: 'problemReport_created' | 'problemReport_resolved',
  id: number,
  account: number,
) =>
  emitEvent(trx, {
    account,
    type,
    details: async () => {
      const problemReport = await recordOf(trx, id);
      return { problemReport, resource: await resourceEventRecordById(trx, problemReport.resource) };
    },
  });

/**
 * POST /resources/{id}/problem-reports: any member who sees the resource. An unsafe report of
 * an active resource locks it in the same transaction (resourceDisabled log naming the report);
 * the bridge hears of it after the commit.
 */
export async function createProblemReport(
  ctx: HubContext,
  caller: Caller,
  resourceId: number,
  body: { description: string; severity: ProblemSeverity },
): Promise<ProblemReportRecord> {
  const resource = await findResource(ctx.db, caller, resourceId);
  const at = ctx.clock.now().toISOString();
  const { id, locked } = await ctx.events.transaction(async (trx) => {
    // Every write of reports takes the resource's row first: one at a time per resource, in one
    // order (the report's foreign key would otherwise share-lock it under an update lock).
    await holdResource(trx, resource.id);
    const row = await insertReport(trx, {
      account: resource.account,
      resource: resource.id,
      member: caller.memberId > 0 ? caller.memberId : null,
      description: body.description,
      severity: body.severity,
      state: 'open',
      createdAt: at,
      updatedAt: at,
    });
    let locked = false;
    if (body.severity === 'unsafe') {
      locked = await lockResourceFor(trx, ctx, caller, resource.id, reportLockReason(row), {
        notes: `Problem report #${row.id} (unsafe): ${body.description}`.slice(0, 2000),
        metadata: { problemReport: row.id },
      });
      if (locked) await updateReport(trx, row.id, { lockedResource: 1 });
    }
    await emitReport(trx, 'problemReport_created', row.id, row.account);
    return { id: row.id, locked };
  });
  if (locked) await ctx.bridges.publishConfig(resource.id);
  return recordOf(ctx.db, id);
}

export interface ReportListQuery {
  state?: ProblemState;
  resource?: number;
  limit: number;
  offset: number;
}

/** GET /problem-reports: admins and maintainers every report of the account; members their own. */
export async function listProblemReports(db: Db, caller: Caller, query: ReportListQuery) {
  const filter: ReportFilter = {
    account: accountOf(caller),
    ...(query.state ? { state: query.state } : {}),
    ...(query.resource ? { resource: query.resource } : {}),
    ...((await seesAllReports(db, caller)) ? {} : { member: caller.memberId }),
  };
  const [views, total] = await Promise.all([
    reportViewsWhere(db, filter, query),
    countReportsWhere(db, filter),
  ]);
  return { records: views.map(problemReportRecord), total };
}

export async function getProblemReport(db: Db, caller: Caller, id: number): Promise<ProblemReportRecord> {
  return problemReportRecord(await visibleReport(db, caller, id));
}

/**
 * POST /problem-reports/{id}/resolve: admins, and maintainers of the resource's type. When the
 * report holds its resource's lock (the lock reason is still the report's), the lock passes to
 * the oldest other open unsafe report of the resource, or, with none left, the resource is
 * unlocked with a resourceEnabled log naming the report.
 */
export async function resolveProblemReport(
  ctx: HubContext,
  caller: Caller,
  id: number,
  note: string,
): Promise<ProblemReportRecord> {
  const view = await visibleReport(ctx.db, caller, id);
  if (!(await mayResolve(ctx.db, caller, view.resourceType))) {
    throw forbidden('Only admins and the maintainers of this resource type may resolve its problem reports', {
      reason: 'notMaintainer',
    });
  }
  const at = ctx.clock.now().toISOString();
  const changed = await ctx.events.transaction(async (trx) => {
    // The resource first, then the report (the order of every write of reports; see create).
    await holdResource(trx, view.resource);
    const row = await reportRowForUpdate(trx, id);
    if (!row) throw notFound('Problem report');
    if (row.state !== 'open')
      throw conflict('This problem report is resolved already', { alreadyResolved: true });
    let unlocked = false;
    let lockChanged = false;
    if (row.severity === 'unsafe' && Number(row.lockedResource) === 1) {
      const next = (await openUnsafeReports(trx, row.resource, row.id))[0] ?? null;
      const outcome = await passOnLock(
        trx,
        ctx,
        caller,
        row.resource,
        reportLockReason(row),
        next ? reportLockReason(next) : null,
        {
          notes: `Problem report #${row.id} resolved: ${note}`.slice(0, 2000),
          metadata: { problemReport: row.id },
        },
      );
      if (outcome === 'passedOn' && next)
        await updateReport(trx, next.id, { lockedResource: 1, updatedAt: at });
      unlocked = outcome === 'unlocked';
      lockChanged = outcome !== 'notOurs';
    }
    await updateReport(trx, row.id, {
      state: 'resolved',
      resolvedAt: at,
      resolvedBy: caller.memberId > 0 ? caller.memberId : null,
      resolutionNote: note,
      unlockedResource: unlocked ? 1 : 0,
      updatedAt: at,
    });
    await emitReport(trx, 'problemReport_resolved', row.id, row.account);
    return lockChanged;
  });
  if (changed) await ctx.bridges.publishConfig(view.resource);
  return recordOf(ctx.db, id);
}

// ---- photos ----

/**
 * PUT /problem-reports/{id}/photo: the reporter, an admin, or a maintainer of the resource's
 * type, while the report is open. JPEG or PNG by magic bytes (415), at most
 * PROBLEM_PHOTO_MAX_BYTES (413), a complete image (422); stored stripped of its metadata.
 */
export async function putProblemPhoto(
  ctx: HubContext,
  caller: Caller,
  id: number,
  body: unknown,
): Promise<ProblemReportRecord> {
  const view = await visibleReport(ctx.db, caller, id);
  const own = view.member === caller.memberId && caller.memberId > 0;
  if (!own && !(await mayResolve(ctx.db, caller, view.resourceType))) {
    throw forbidden('Only the member who reported it, admins and its maintainers may add a photo', {
      reason: 'notReporter',
    });
  }
  if (view.state !== 'open')
    throw conflict('This problem report is resolved already', { alreadyResolved: true });
  if (!Buffer.isBuffer(body)) {
    throw new HttpError(
      415,
      'Send the photo’s bytes as the body, with Content-Type image/jpeg or image/png',
      {
        field: 'photo',
      },
    );
  }
  if (body.length > PROBLEM_PHOTO_MAX_BYTES) {
    throw new HttpError(413, `The photo is larger than ${PROBLEM_PHOTO_MAX_BYTES / (1024 * 1024)} MB`, {
      field: 'photo',
      maxBytes: PROBLEM_PHOTO_MAX_BYTES,
    });
  }
  const type = photoType(body);
  if (!type) {
    throw new HttpError(415, 'The photo must be a JPEG or PNG image', {
      field: 'photo',
      accepted: ['image/jpeg', 'image/png'],
    });
  }
  let data: Buffer;
  try {
    data = stripPhoto(body, type);
  } catch (err) {
    if (err instanceof DamagedPhotoError) throw unprocessable(err.message, { field: 'photo' });
    throw err;
  }
  const at = ctx.clock.now().toISOString();
  await ctx.events.transaction(async (trx) => {
    await putReportPhoto(trx, {
      report: view.id,
      account: view.account,
      contentType: type,
      bytes: data.length,
      data,
      createdAt: at,
      createdBy: caller.memberId > 0 ? caller.memberId : null,
    });
    await updateReport(trx, view.id, { updatedAt: at });
  });
  return recordOf(ctx.db, id);
}

/** GET /problem-reports/{id}/photo: whoever sees the report (members of its account only). */
export async function problemPhoto(db: Db, caller: Caller, id: number) {
  const view = await visibleReport(db, caller, id);
  const photo = await reportPhoto(db, view.id);
  if (!photo) throw notFound('Photo');
  return { contentType: photo.contentType, data: Buffer.from(photo.data) };
}
