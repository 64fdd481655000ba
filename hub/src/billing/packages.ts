import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { bool, defined, flag, jsonText, parseJson } from '../db/crud.js';
import { insertRow } from '../db/collection-rows.js';
import type {
  MemberPackagesTable,
  PackageCreditsTable,
  PackagePermissionsTable,
  PackagesTable,
} from '../db/schema.js';
import { columnsOf, recordEvents, recordOf, referencedRow, rowById, stampsOf } from '../db/records.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { forbidden, unprocessable } from '../errors.js';
import { sanitizeRichText } from '../rich-text.js';
import { formatMoney, formatPercent, parseMoney } from '../kernel/money.js';
import { memberEventRecord } from '../identity/members.js';
import { packageMemberCounts } from './billing.repository.js';
import { aHolderOf, packagesByIds, packagesOf } from './packages.repository.js';

export type PackageRow = Selectable<PackagesTable>;
export type PackageCreditRow = Selectable<PackageCreditsTable>;
export type PackagePermissionRow = Selectable<PackagePermissionsTable>;
export type MemberPackageRow = Selectable<MemberPackagesTable>;

/**
 * Fields of a package that only owners may set or change: they decide what members pay and
 * whether the package can be handed out at all. An admin (or an admin's API key) who sends a
 * different value gets 403; sending the current value back (GET, change, PUT whole) is fine.
 */
export const ownerOnlyPackageFields = [
  'setupFee',
  'recurringFee',
  'recurringFeePeriod',
  'prorate',
  'state',
] as const;

export function packageRecord(row: PackageRow) {
  return {
    ...columnsOf(row, ['id', 'account', 'name', 'description', 'notes']),
    state: row.state as 'active' | 'archived',
    allowsBooking: bool(row.allowsBooking),
    setupFee: formatMoney(parseMoney(row.setupFee)),
    recurringFee: formatMoney(parseMoney(row.recurringFee)),
    recurringFeePeriod: row.recurringFeePeriod as 'month',
    prorate: bool(row.prorate),
    ...columnsOf(row, ['minimumDuration', 'minimumDurationUnit']),
    endsAutomatically: bool(row.endsAutomatically),
    ...columnsOf(row, ['cancellationTime', 'cancellationTimeUnit']),
    metadata: parseJson<Record<string, unknown>>(row.metadata),
    ...stampsOf(row),
  };
}

export function creditRecord(row: PackageCreditRow) {
  return {
    ...columnsOf(row, ['id', 'package']),
    scope: row.scope as 'global',
    amount: formatMoney(parseMoney(row.amount)),
    period: row.period as 'month',
    resources: parseJson<any[]>(row.resources) ?? [],
    ...stampsOf(row),
  };
}

export function permissionRecord(row: PackagePermissionRow) {
  return {
    ...columnsOf(row, ['id', 'package']),
    type: row.type as 'everything',
    ...columnsOf(row, ['resourceType', 'resource']),
    timeType: row.timeType as 'always',
    times: parseJson<any[]>(row.times) ?? [],
    usageFeeDiscountPercent: formatPercent(parseMoney(row.usageFeeDiscountPercent)),
    bookingFeeDiscountPercent: formatPercent(parseMoney(row.bookingFeeDiscountPercent)),
    ...stampsOf(row),
  };
}

export function memberPackageRecord(row: MemberPackageRow) {
  return recordOf(row, ['id', 'member', 'package', 'fromDate', 'untilDate', 'notes']);
}

/** Member package records of a page; `package` embeds each one's package (read once per page). */
export async function memberPackageRecords(db: Db, rows: MemberPackageRow[], embed: readonly string[]) {
  if (!embed.includes('package')) return rows.map(memberPackageRecord);
  const ids = [...new Set(rows.map((r) => r.package))];
  const found = ids.length ? await packagesByIds(db, ids) : [];
  const byId = new Map(found.map((p) => [p.id, packageRecord(p)]));
  return rows.map((r) => ({
    ...memberPackageRecord(r),
    _embedded: { package: byId.get(r.package) ?? null },
  }));
}

/** Package records of a page; `memberCount` embeds how many members hold each one today. */
export async function packageRecords(db: Db, rows: PackageRow[], embed: readonly string[], today: string) {
  if (!embed.includes('memberCount')) return rows.map(packageRecord);
  const counts = await packageMemberCounts(
    db,
    rows.map((r) => r.id),
    today,
  );
  return rows.map((r) => ({ ...packageRecord(r), _embedded: { memberCount: counts.get(r.id) ?? 0 } }));
}

/** Packages the caller sees: admins their account's, plain members the packages they hold. */
export function visiblePackages(db: Db, caller: Caller) {
  return packagesOf(db, {
    account: caller.superuser ? undefined : caller.accountId,
    heldBy: isAdmin(caller) ? undefined : caller.memberId,
  });
}

function isOwner(caller: Caller): boolean {
  return caller.superuser || caller.privileges === 'owner';
}

type PackageInput = Record<string, unknown>;

function packageColumns(input: PackageInput) {
  return defined({
    ...input,
    description: sanitizeRichText(input.description as string | null | undefined),
    notes: sanitizeRichText(input.notes as string | null | undefined),
    setupFee: input.setupFee === undefined ? undefined : formatMoney(parseMoney(input.setupFee as string)),
    recurringFee:
      input.recurringFee === undefined ? undefined : formatMoney(parseMoney(input.recurringFee as string)),
    allowsBooking: flag(input.allowsBooking as boolean | undefined),
    prorate: flag(input.prorate as boolean | undefined),
    endsAutomatically: flag(input.endsAutomatically as boolean | undefined),
    metadata: jsonText(input.metadata),
  });
}

const packageDefaults: Record<string, unknown> = {
  setupFee: '0.00',
  recurringFee: '0.00',
  recurringFeePeriod: 'month',
  prorate: false,
  state: 'active',
};

/** 403 when a non-owner sets an owner-only field to something other than `current`. */
function checkOwnerOnly(caller: Caller, input: PackageInput, current: Record<string, unknown>) {
  if (isOwner(caller)) return;
  const changed = ownerOnlyPackageFields.filter((f) => {
    if (input[f] === undefined) return false;
    const a = f.endsWith('Fee') ? formatMoney(parseMoney(input[f] as string)) : input[f];
    return a !== current[f];
  });
  if (changed.length > 0) {
    throw forbidden(`Only owners may set ${changed.join(', ')} of a package`, { ownerOnlyFields: changed });
  }
}

// ---- credits and permissions ------------------------------------------------------------------

/** A permission must name what it covers; the names must exist in the package's account. */
export async function checkPermissionTarget(
  db: Db,
  accountId: number,
  p: {
    type: string;
    resourceType?: number | null;
    resource?: number | null;
    timeType?: string;
    times?: unknown[];
  },
) {
  if (p.type === 'resourceType') {
    if (!p.resourceType)
      throw unprocessable('A resourceType permission needs resourceType', { resourceType: 'missing' });
    const ref = { id: p.resourceType, account: accountId, field: 'resourceType', noun: 'Resource type' };
    await referencedRow(db, 'resource_types', ref);
  }
  if (p.type === 'resource') {
    if (!p.resource) throw unprocessable('A resource permission needs resource', { resource: 'missing' });
    await referencedRow(db, 'resources', {
      id: p.resource,
      account: accountId,
      field: 'resource',
      noun: 'Resource',
    });
  }
  if (p.timeType === 'custom' && (!p.times || p.times.length === 0)) {
    throw unprocessable('A custom time table needs at least one entry in times', { times: 'missing' });
  }
}

export function permissionColumns(input: Record<string, unknown>) {
  const pct = (v: unknown) => (v === undefined ? undefined : formatPercent(parseMoney(v as string)));
  return defined({
    type: input.type as string | undefined,
    resourceType:
      input.type === 'resourceType' ? (input.resourceType as number) : input.type ? null : undefined,
    resource: input.type === 'resource' ? (input.resource as number) : input.type ? null : undefined,
    timeType: input.timeType as string | undefined,
    times: jsonText(input.times) ?? undefined,
    usageFeeDiscountPercent: pct(input.usageFeeDiscountPercent),
    bookingFeeDiscountPercent: pct(input.bookingFeeDiscountPercent),
  });
}

// ---- member packages --------------------------------------------------------------------------

export function checkDates(fromDate: string, untilDate: string | null | undefined) {
  if (untilDate && untilDate < fromDate) {
    throw unprocessable('untilDate must not be before fromDate', { untilDate: 'beforeFromDate' });
  }
}

/** Is the member package active on this (space-local) date? */
export function isActiveOn(mp: { fromDate: string; untilDate: string | null }, date: string): boolean {
  return mp.fromDate <= date && (mp.untilDate === null || date <= mp.untilDate);
}

/** memberPackage_created/updated/deleted {memberPackage, member, package}. */
export const emitMemberPackage = recordEvents<MemberPackageRow, 'memberPackage'>(async (db, row) => {
  const pkg = await rowById(db, 'packages', row.package);
  return {
    memberPackage: memberPackageRecord(row),
    member: await memberEventRecord(db, row.member),
    package: pkg ? packageRecord(pkg) : null,
  };
});

// ---- what the collections of packages.routes.ts write -----------------------------------------

export function createPackage(trx: Db, caller: Caller, input: PackageInput, at: string): Promise<PackageRow> {
  checkOwnerOnly(caller, input, packageDefaults);
  return insertRow(
    trx,
    'packages',
    { ...packageColumns(input), account: caller.accountId },
    { at, by: caller.memberId },
  );
}

/** The columns a package update writes; owner-only fields refused for others (403). */
export function packageChanges(caller: Caller, row: PackageRow, input: PackageInput) {
  const { lockVersion: _, ...fields } = input;
  checkOwnerOnly(caller, fields, packageRecord(row));
  return packageColumns(fields);
}

/** A package with fees is deleted by owners only; one that members hold stays (422). */
export async function refusePackageDelete(db: Db, caller: Caller, row: PackageRow): Promise<void> {
  if (!isOwner(caller) && row.recurringFee !== '0.00') {
    // Deleting a paid package changes what members pay: owners only, like its fees.
    throw forbidden('Only owners may delete a package with fees', { ownerOnlyFields: ['recurringFee'] });
  }
  if (await aHolderOf(db, row.id)) {
    throw unprocessable('Members hold this package; end their member packages or archive it instead', {
      packageInUse: true,
    });
  }
}

/**
 * Money fields of credits and permissions that only owners may change, like a package's fees
 * (what members get for what they pay). Others sending a different value get 403.
 */
function checkOwnerOnlyValues(
  caller: Caller,
  changes: { field: string; from: string; to: string | undefined }[],
) {
  if (isOwner(caller)) return;
  const changed = changes.filter((c) => c.to !== undefined && c.to !== c.from).map((c) => c.field);
  if (changed.length > 0)
    throw forbidden(`Only owners may set ${changed.join(', ')}`, { ownerOnlyFields: changed });
}
const money = (v: unknown) => (v === undefined ? undefined : formatMoney(parseMoney(v as string)));
const pct = (v: unknown) => (v === undefined ? undefined : formatPercent(parseMoney(v as string)));

/** The columns a package credit update writes. */
export function creditChanges(caller: Caller, row: PackageCreditRow, input: Record<string, unknown>) {
  const { lockVersion: _, amount, resources, ...rest } = input;
  checkOwnerOnlyValues(caller, [{ field: 'amount', from: row.amount, to: money(amount) }]);
  return defined({ ...rest, amount: money(amount), resources: jsonText(resources) ?? undefined });
}

/** A new permission of a package: its target must be of the account; discounts owners only. */
export async function createPermission(
  trx: Db,
  caller: Caller,
  pkg: PackageRow,
  input: Record<string, unknown>,
  at: string,
): Promise<PackagePermissionRow> {
  checkOwnerOnlyValues(caller, [
    { field: 'usageFeeDiscountPercent', from: '0', to: pct(input.usageFeeDiscountPercent) },
    { field: 'bookingFeeDiscountPercent', from: '0', to: pct(input.bookingFeeDiscountPercent) },
  ]);
  await checkPermissionTarget(trx, pkg.account, input as Parameters<typeof checkPermissionTarget>[2]);
  return insertRow(
    trx,
    'package_permissions',
    { ...permissionColumns(input), account: pkg.account, package: pkg.id },
    { at, by: caller.memberId },
  );
}

/** The columns a permission update writes, checked as a whole (the target after the change). */
export async function permissionChanges(
  trx: Db,
  caller: Caller,
  row: PackagePermissionRow,
  input: Record<string, unknown>,
) {
  const { lockVersion: _, ...fields } = input as Record<string, any>;
  checkOwnerOnlyValues(caller, [
    {
      field: 'usageFeeDiscountPercent',
      from: row.usageFeeDiscountPercent,
      to: pct(fields.usageFeeDiscountPercent),
    },
    {
      field: 'bookingFeeDiscountPercent',
      from: row.bookingFeeDiscountPercent,
      to: pct(fields.bookingFeeDiscountPercent),
    },
  ]);
  const merged = {
    type: fields.type ?? row.type,
    resourceType: fields.resourceType !== undefined ? fields.resourceType : row.resourceType,
    resource: fields.resource !== undefined ? fields.resource : row.resource,
    timeType: fields.timeType ?? row.timeType,
    times: fields.times ?? JSON.parse(row.times),
  };
  await checkPermissionTarget(trx, row.account, merged);
  return permissionColumns({ ...fields, ...merged, times: fields.times });
}

/** The columns a member package update writes (its dates checked against each other). */
export function memberPackageChanges(
  row: MemberPackageRow,
  input: { fromDate?: string; untilDate?: string | null; notes?: string | null },
) {
  const { fromDate, untilDate, notes } = input;
  checkDates(fromDate ?? row.fromDate, untilDate === undefined ? row.untilDate : untilDate);
  return defined({ fromDate, untilDate, notes });
}
