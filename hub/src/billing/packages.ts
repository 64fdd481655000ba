import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { bool, defined, flag, jsonText, now, parseJson, updateLocked } from '../db/crud.js';
import type {
  MemberPackagesTable,
  PackageCreditsTable,
  PackagePermissionsTable,
  PackagesTable,
} from '../db/schema.js';
import { type Caller, isAdmin } from '../http/auth.js';
import { forbidden, notFound, unprocessable } from '../http/errors.js';
import { sanitizeRichText } from '../rich-text.js';
import { formatMoney, formatPercent, parseMoney } from './money.js';

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
    id: row.id,
    account: row.account,
    name: row.name,
    description: row.description,
    notes: row.notes,
    state: row.state as 'active' | 'archived',
    allowsBooking: bool(row.allowsBooking),
    setupFee: formatMoney(parseMoney(row.setupFee)),
    recurringFee: formatMoney(parseMoney(row.recurringFee)),
    recurringFeePeriod: row.recurringFeePeriod as 'month',
    prorate: bool(row.prorate),
    minimumDuration: row.minimumDuration,
    minimumDurationUnit: row.minimumDurationUnit,
    endsAutomatically: bool(row.endsAutomatically),
    cancellationTime: row.cancellationTime,
    cancellationTimeUnit: row.cancellationTimeUnit,
    metadata: parseJson<Record<string, unknown>>(row.metadata),
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

export function creditRecord(row: PackageCreditRow) {
  return {
    id: row.id,
    package: row.package,
    scope: row.scope as 'global',
    amount: formatMoney(parseMoney(row.amount)),
    period: row.period as 'month',
    resources: parseJson<any[]>(row.resources) ?? [],
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

export function permissionRecord(row: PackagePermissionRow) {
  return {
    id: row.id,
    package: row.package,
    type: row.type as 'everything',
    resourceType: row.resourceType,
    resource: row.resource,
    timeType: row.timeType as 'always',
    times: parseJson<any[]>(row.times) ?? [],
    usageFeeDiscountPercent: formatPercent(parseMoney(row.usageFeeDiscountPercent)),
    bookingFeeDiscountPercent: formatPercent(parseMoney(row.bookingFeeDiscountPercent)),
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

export function memberPackageRecord(row: MemberPackageRow) {
  return {
    id: row.id,
    member: row.member,
    package: row.package,
    fromDate: row.fromDate,
    untilDate: row.untilDate,
    notes: row.notes,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** Packages the caller sees: admins their account's, plain members the packages they hold. */
export function visiblePackages(db: Db, caller: Caller) {
  let query = db.selectFrom('packages');
  if (!caller.superuser) query = query.where('packages.account', '=', caller.accountId);
  if (!isAdmin(caller)) {
    query = query.where('packages.id', 'in', (eb) =>
      eb.selectFrom('member_packages').select('package').where('member', '=', caller.memberId),
    );
  }
  return query;
}

export async function findPackage(db: Db, caller: Caller, id: number): Promise<PackageRow> {
  const row = await visiblePackages(db, caller).selectAll().where('packages.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Package');
  return row;
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

export async function createPackage(db: Db, caller: Caller, input: PackageInput): Promise<PackageRow> {
  checkOwnerOnly(caller, input, packageDefaults);
  const at = now();
  return db
    .insertInto('packages')
    .values({
      ...(packageColumns(input) as any),
      account: caller.accountId,
      createdAt: at,
      updatedAt: at,
      updatedBy: caller.memberId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updatePackage(
  db: Db,
  caller: Caller,
  id: number,
  input: PackageInput & { lockVersion: number },
) {
  const current = await findPackage(db, caller, id);
  const { lockVersion, ...fields } = input;
  checkOwnerOnly(caller, fields, packageRecord(current));
  await updateLocked(db, 'packages', id, lockVersion, packageColumns(fields), caller.memberId);
  return findPackage(db, caller, id);
}

export async function deletePackage(db: Db, caller: Caller, id: number) {
  const row = await findPackage(db, caller, id);
  if (!isOwner(caller) && row.recurringFee !== '0.00') {
    // Deleting a paid package changes what members pay: owners only, like its fees.
    throw forbidden('Only owners may delete a package with fees', { ownerOnlyFields: ['recurringFee'] });
  }
  const held = await db
    .selectFrom('member_packages')
    .select('id')
    .where('package', '=', id)
    .executeTakeFirst();
  if (held) {
    throw unprocessable('Members hold this package; end their member packages or archive it instead', {
      packageInUse: true,
    });
  }
  await db.deleteFrom('packages').where('id', '=', id).execute();
}

// ---- credits and permissions ------------------------------------------------------------------

export async function findCredit(db: Db, packageId: number, id: number) {
  const row = await db
    .selectFrom('package_credits')
    .selectAll()
    .where('package', '=', packageId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Package credit');
  return row;
}

export async function findPermission(db: Db, packageId: number, id: number) {
  const row = await db
    .selectFrom('package_permissions')
    .selectAll()
    .where('package', '=', packageId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Package permission');
  return row;
}

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
    const t = await db
      .selectFrom('resource_types')
      .select('id')
      .where('id', '=', p.resourceType)
      .where('account', '=', accountId)
      .executeTakeFirst();
    if (!t)
      throw unprocessable(`Resource type ${p.resourceType} does not exist`, { resourceType: 'unknown' });
  }
  if (p.type === 'resource') {
    if (!p.resource) throw unprocessable('A resource permission needs resource', { resource: 'missing' });
    const r = await db
      .selectFrom('resources')
      .select('id')
      .where('id', '=', p.resource)
      .where('account', '=', accountId)
      .executeTakeFirst();
    if (!r) throw unprocessable(`Resource ${p.resource} does not exist`, { resource: 'unknown' });
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

export async function updateCredit(
  db: Db,
  caller: Caller,
  row: PackageCreditRow,
  input: Record<string, unknown> & { lockVersion: number },
) {
  const { lockVersion, amount, resources, ...rest } = input;
  await updateLocked(
    db,
    'package_credits',
    row.id,
    lockVersion,
    defined({
      ...rest,
      amount: amount === undefined ? undefined : formatMoney(parseMoney(amount as string)),
      resources: jsonText(resources) ?? undefined,
    }),
    caller.memberId,
  );
  return findCredit(db, row.package, row.id);
}

// ---- member packages --------------------------------------------------------------------------

export async function findMemberPackage(db: Db, memberId: number, id: number) {
  const row = await db
    .selectFrom('member_packages')
    .selectAll()
    .where('member', '=', memberId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Member package');
  return row;
}

export function checkDates(fromDate: string, untilDate: string | null | undefined) {
  if (untilDate && untilDate < fromDate) {
    throw unprocessable('untilDate must not be before fromDate', { untilDate: 'beforeFromDate' });
  }
}

/** Is the member package active on this (space-local) date? */
export function isActiveOn(mp: { fromDate: string; untilDate: string | null }, date: string): boolean {
  return mp.fromDate <= date && (mp.untilDate === null || date <= mp.untilDate);
}
