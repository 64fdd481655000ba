import { countWhere, type Db } from '../db/crud.js';
import { chargesOfMemberPackage, creditsOfMemberPackage } from './billing.repository.js';
import { spaceOfMember } from '../identity/members.repository.js';
import { chargeOfFee } from './charges.repository.js';
import { grantedCredit, insertMemberCredit } from './credits.repository.js';
import { creditsOfPackage, memberPackagesOfAccount, updateMemberPackage } from './packages.repository.js';
import { referencedRow, rowById } from '../db/records.js';
import { memberTaxPercent, insertCharge } from './charges.js';
import { addPeriod, localTime } from './local-time.js';
import { formatMoney, formatPercent, parseMoney } from '../kernel/money.js';
import { checkDates, emitMemberPackage, type MemberPackageRow } from './packages.js';
import { insertRow } from '../db/collection-rows.js';
import { unprocessable } from '../errors.js';
import type { Caller } from '../kernel/caller.js';
import { spaceTimeZone } from '../spaces/spaces.repository.js';
import { emitMemberCredit } from './member-credits.js';
import type { MemberPackagePreview } from '@makerspace/shared';

const MAX_PERIODS = 2000;

/** The period (aligned to `fromDate`) that contains `date`: [start, next). */
function periodContaining(
  fromDate: string,
  unit: string,
  date: string,
): { start: string; next: string } | null {
  if (date < fromDate) return null;
  let k = 0;
  let start = fromDate;
  let next = addPeriod(fromDate, unit, 1);
  while (next <= date && k < MAX_PERIODS) {
    k++;
    start = next;
    next = addPeriod(fromDate, unit, k + 1);
  }
  return { start, next };
}

const dayAfter = (date: string) => addPeriod(date, 'day', 1);

/** The first day of the calendar week (Monday), month or year that contains `date`. */
function calendarStart(date: string, unit: string): string {
  if (unit === 'month') return `${date.slice(0, 7)}-01`;
  if (unit === 'year') return `${date.slice(0, 4)}-01-01`;
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
  return addPeriod(date, 'day', -weekday);
}

const daysBetween = (from: string, until: string) =>
  Math.round((Date.parse(`${until}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/**
 * A member package's first fee period. Without `prorate` (or for daily fees) the periods are
 * aligned to `fromDate`. With it, as in the commercial service, they are aligned to the calendar
 * (weeks from Monday, months from the 1st, years from 1 January): a package starting mid-period
 * pays that first, shorter period pro rata by days (`share`), then full calendar periods.
 */
export function firstPeriod(
  fromDate: string,
  unit: string,
  prorate: boolean,
): { next: string; share: { days: number; of: number } | null } {
  if (!prorate || unit === 'day') return { next: addPeriod(fromDate, unit, 1), share: null };
  const start = calendarStart(fromDate, unit);
  const next = addPeriod(start, unit, 1);
  if (start === fromDate) return { next, share: null };
  return { next, share: { days: daysBetween(fromDate, next), of: daysBetween(start, next) } };
}

/** `fee` times days/of, rounded half up (insertCharge rounds it to cents). */
function shareOf(fee: bigint, share: { days: number; of: number }): bigint {
  const of = BigInt(share.of);
  return (fee * BigInt(share.days) * 2n + of) / (2n * of);
}

export interface PackageBillResult {
  charges: number;
  credits: number;
}

/**
 * Brings one member package's billing up to `today` (space-local): the setup fee once, the
 * recurring fee for every period (aligned to fromDate) that has started and not been charged,
 * and the member's credits for the current period of each package credit. Idempotent: running
 * it again (a resumed job, a second hub) charges nothing twice.
 */
export async function billMemberPackage(
  db: Db,
  mp: MemberPackageRow,
  today: string,
  at: Date,
): Promise<PackageBillResult> {
  const stamp = at.toISOString();
  const result = { charges: 0, credits: 0 };
  if (mp.fromDate > today) return result;
  const pkg = await rowById(db, 'packages', mp.package);
  const member = await rowById(db, 'members', mp.member);
  if (!pkg || !member) return result;
  const taxPercent = await memberTaxPercent(db, member, stamp);
  const chargeFee = async (feeKey: string, description: string, price: bigint, dateTime: string) => {
    const exists = await chargeOfFee(db, feeKey);
    if (exists || price <= 0n) return;
    await insertCharge(db, {
      account: mp.account,
      member: mp.member,
      dateTime,
      description,
      price,
      taxPercent,
      memberPackage: mp.id,
      feeKey,
      calculated: true,
      updatedBy: null,
      at: stamp,
    });
    result.charges++;
  };

  if (mp.setupCharged !== 1) {
    await chargeFee(
      `setup:${mp.id}`,
      `${pkg.name}: setup fee`,
      parseMoney(pkg.setupFee),
      `${mp.fromDate}T00:00:00.000Z`,
    );
    await updateMemberPackage(db, mp.id, { setupCharged: 1 });
  }

  const fee = parseMoney(pkg.recurringFee);
  let billedUntil = mp.billedUntil ?? mp.fromDate;
  const first = firstPeriod(mp.fromDate, pkg.recurringFeePeriod, pkg.prorate === 1);
  for (let k = 0; k < MAX_PERIODS; k++) {
    const start = k === 0 ? mp.fromDate : addPeriod(first.next, pkg.recurringFeePeriod, k - 1);
    if (start > today || (mp.untilDate !== null && start > mp.untilDate)) break;
    const next = k === 0 ? first.next : addPeriod(first.next, pkg.recurringFeePeriod, k);
    if (start < billedUntil) continue;
    const last = mp.untilDate !== null && mp.untilDate < next ? mp.untilDate : addPeriod(next, 'day', -1);
    await chargeFee(
      `fee:${mp.id}:${start}`,
      `${pkg.name}: ${start} to ${last}${k === 0 && first.share ? ' (pro rata)' : ''}`,
      k === 0 && first.share ? shareOf(fee, first.share) : fee,
      `${start}T00:00:00.000Z`,
    );
    billedUntil = next;
  }
  if (billedUntil !== (mp.billedUntil ?? mp.fromDate)) {
    await updateMemberPackage(db, mp.id, { billedUntil });
  }

  if (mp.untilDate === null || today <= mp.untilDate) {
    const credits = await creditsOfPackage(db, mp.package);
    const end = mp.untilDate === null ? null : dayAfter(mp.untilDate);
    for (const credit of credits) {
      const period =
        credit.period === 'once'
          ? { start: mp.fromDate, next: end }
          : periodContaining(mp.fromDate, credit.period, today);
      if (!period) continue;
      const untilDate = end !== null && (period.next === null || end < period.next) ? end : period.next;
      if (await grantedCredit(db, mp.id, credit.id, period.start)) continue;
      const amount = formatMoney(parseMoney(credit.amount));
      const granted = await insertMemberCredit(db, {
        account: mp.account,
        member: mp.member,
        memberPackage: mp.id,
        packageCredit: credit.id,
        scope: credit.scope,
        resources: credit.resources,
        amount,
        remaining: amount,
        fromDate: period.start,
        untilDate,
        createdAt: stamp,
        updatedAt: stamp,
        updatedBy: null,
      });
      await emitMemberCredit(db, 'memberCredit_created', granted);
      result.credits++;
    }
  }
  return result;
}

/** Today in the member's space. */
export async function memberToday(db: Db, memberId: number, at: Date): Promise<string> {
  const space = await spaceOfMember(db, memberId);
  return localTime(at, space !== undefined ? await spaceTimeZone(db, space) : 'UTC').date;
}

/** Lets the hub answer other requests between two members of a long billing job (SQLite runs synchronously). */
export const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Bills every member package of an account (the recurring package-billing job): a page of them
 * at a time, each in its own transaction, letting other requests in between.
 */
export async function billAccountPackages(
  db: Db,
  accountId: number,
  at: Date,
  progress?: (done: number, total: number) => Promise<void>,
): Promise<PackageBillResult & { memberPackages: number }> {
  const count = await countWhere(db, 'member_packages', { account: accountId });
  const total = { charges: 0, credits: 0, memberPackages: 0 };
  let after = 0;
  for (;;) {
    const rows = await memberPackagesOfAccount(db, accountId, { after, limit: 500 });
    if (rows.length === 0) break;
    for (const mp of rows) {
      const today = await memberToday(db, mp.member, at);
      const r = await db.transaction().execute(async (trx) => {
        const fresh = await rowById(trx, 'member_packages', mp.id);
        return fresh ? billMemberPackage(trx, fresh, today, at) : { charges: 0, credits: 0 };
      });
      total.charges += r.charges;
      total.credits += r.credits;
      total.memberPackages++;
      const done = total.memberPackages;
      if (progress && (done % 25 === 0 || done === count)) await progress(done, Math.max(count, done));
      await yieldToRequests();
    }
    after = rows[rows.length - 1].id;
  }
  return total;
}

/**
 * Gives a member a package (an active one of the member's account): from `fromDate` (default
 * the member's today) until `untilDate`; its setup fee, first period's fee and first credits are
 * billed at once, the periodic job does the rest.
 */
export async function createMemberPackage(
  trx: Db,
  input: {
    member: { id: number; account: number; state?: string };
    caller: Caller;
    body: { package: number; fromDate?: string; untilDate?: string | null; notes?: string | null };
    at: Date;
  },
): Promise<MemberPackageRow> {
  const { member, body } = input;
  // A sign-up waiting for approval is charged nothing: its package comes with the approval.
  if (member.state === 'pending') {
    throw unprocessable('This member’s sign-up waits for approval: approve it to give the package', {
      memberPending: true,
    });
  }
  const pkg = await referencedRow(trx, 'packages', {
    id: body.package,
    account: member.account,
    field: 'package',
    noun: 'Package',
  });
  if (pkg.state !== 'active') throw unprocessable('This package is archived', { packageArchived: true });
  const today = await memberToday(trx, member.id, input.at);
  const fromDate = body.fromDate ?? today;
  checkDates(fromDate, body.untilDate);
  const row = await insertRow(
    trx,
    'member_packages',
    {
      account: member.account,
      member: member.id,
      package: pkg.id,
      fromDate,
      untilDate: body.untilDate ?? null,
      notes: body.notes ?? null,
    },
    { at: input.at.toISOString(), by: input.caller.memberId },
  );
  await emitMemberPackage(trx, 'memberPackage_created', row);
  await billMemberPackage(trx, row, today, input.at);
  return row;
}

/** Thrown to roll back a preview's transaction with what it found. */
class PreviewRolledBack extends Error {
  constructor(readonly preview: MemberPackagePreview) {
    super('preview rolled back');
  }
}

/**
 * What giving the member this package would charge and grant: `createMemberPackage` runs, in a
 * transaction that is then rolled back, so the figures are billing's own. When the package starts
 * later than today, its billing is also run as on `fromDate` (what the periodic job will charge
 * then). Nothing stays written; bad input is refused as the real create refuses it.
 */
export async function previewMemberPackage(
  transaction: <T>(fn: (trx: Db) => Promise<T>) => Promise<T>,
  input: Parameters<typeof createMemberPackage>[1],
): Promise<MemberPackagePreview> {
  try {
    await transaction(async (trx) => {
      const row = await createMemberPackage(trx, input);
      if (row.fromDate > (await memberToday(trx, row.member, input.at))) {
        await billMemberPackage(trx, row, row.fromDate, input.at);
      }
      const charges = await chargesOfMemberPackage(trx, row.id);
      const credits = await creditsOfMemberPackage(trx, row.id);
      throw new PreviewRolledBack({
        fromDate: row.fromDate,
        untilDate: row.untilDate,
        charges: charges.map((c) => ({
          dateTime: c.dateTime,
          description: c.description,
          price: formatMoney(parseMoney(c.price)),
          taxPercent: formatPercent(parseMoney(c.taxPercent)),
        })),
        total: formatMoney(charges.reduce((sum, c) => sum + parseMoney(c.price), 0n)),
        credits: credits.map((c) => ({ ...c, amount: formatMoney(parseMoney(c.amount)) })),
      });
    });
  } catch (err) {
    if (err instanceof PreviewRolledBack) return err.preview;
    throw err;
  }
  throw new Error('a preview is always rolled back');
}

/** After a member package changed: its event, and the fees and credits its new dates call for. */
export async function memberPackageChanged(trx: Db, row: MemberPackageRow, at: Date): Promise<void> {
  await emitMemberPackage(trx, 'memberPackage_updated', row);
  await billMemberPackage(trx, row, await memberToday(trx, row.member, at), at);
}
