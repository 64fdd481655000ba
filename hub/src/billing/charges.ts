import type { Selectable } from 'kysely';
import type { HubContext, UsageCharges } from '../context.js';
import type { Db } from '../db/crud.js';
import { bool, defined, isUniqueViolation, parseJson } from '../db/crud.js';
import { columnsOf, recordEvents, referencedRow, rowById, stampsOf } from '../db/records.js';
import type { ChargesTable, MembersTable, ResourcesTable } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';
import { visibleIn } from './list-filters.js';
import { conflict, unprocessable } from '../errors.js';
import { memberEventRecord } from '../identity/members.js';
import { emitMemberCredit } from './member-credits.js';
import { localTime } from './local-time.js';
import {
  type Amount,
  formatMoney,
  formatPercent,
  max,
  min,
  parseMoney,
  percentOf,
  roundToCents,
} from '../kernel/money.js';
import { timeWindow } from './rules.js';
import { billingSettingsFor } from './settings.js';
import { spaceTimeZone } from '../spaces/spaces.repository.js';
import { isMembersUse } from './billing.repository.js';
import { markBookingCharged } from '../spaces/bookings.repository.js';
import { chargeInvoiceAndFee, chargeOfUse, chargesByIds, insertChargeRow } from './charges.repository.js';
import { creditsCovering, creditUseOf, insertCreditUse, writeRemaining } from './credits.repository.js';
import { type CoveringPermission, coveringPermissions } from './packages.repository.js';

export type ChargeRow = Selectable<ChargesTable>;
/** What billing needs from the hub: the clock. */
export type BillingContext = Pick<HubContext, 'clock'>;

export function chargeRecord(row: ChargeRow) {
  return {
    ...columnsOf(row, ['id', 'account', 'member', 'dateTime', 'description']),
    price: formatMoney(parseMoney(row.price)),
    taxPercent: formatPercent(parseMoney(row.taxPercent)),
    ...columnsOf(row, ['invoice', 'booking', 'resourceLog', 'memberPackage']),
    calculated: bool(row.calculated),
    ...stampsOf(row),
  };
}

/** Charges the caller sees: admins their account's, plain members their own. */
export const visibleCharges = (db: Db, caller: Caller) => visibleIn(db, 'charges', caller);

/** The tax rate of a member's charges: 0 for tax-exempt members, else their space's rate. */
export async function memberTaxPercent(
  db: Db,
  member: { space: number; taxExempt: number },
  /** The hub clock's time: stamps the space's settings row if it has none yet. */
  at: string,
): Promise<string> {
  if (member.taxExempt === 1) return '0';
  return (await billingSettingsFor(db, member.space, { at })).taxPercent;
}

export interface NewCharge {
  account: number;
  member: number;
  dateTime: string;
  description: string;
  price: Amount;
  taxPercent: string;
  booking?: number | null;
  resourceLog?: number | null;
  memberPackage?: number | null;
  feeKey?: string | null;
  calculated: boolean;
  updatedBy: number | null;
  /** When it is written, from the hub's clock. */
  at: string;
}

/** Inserts a charge and emits charge_created with `db` (pass the transaction of the change). */
export async function insertCharge(db: Db, c: NewCharge): Promise<ChargeRow> {
  const at = c.at;
  const row = await insertChargeRow(db, {
    account: c.account,
    member: c.member,
    dateTime: c.dateTime,
    description: c.description,
    price: formatMoney(roundToCents(c.price)),
    taxPercent: formatPercent(parseMoney(c.taxPercent)),
    invoice: null,
    booking: c.booking ?? null,
    resourceLog: c.resourceLog ?? null,
    memberPackage: c.memberPackage ?? null,
    feeKey: c.feeKey ?? null,
    calculated: c.calculated ? 1 : 0,
    createdAt: at,
    updatedAt: at,
    updatedBy: c.updatedBy,
  });
  await emitCharge(db, 'charge_created', row);
  return row;
}

/** POST /charges: a manual charge by an admin. */
export async function createCharge(
  db: Db,
  caller: Caller,
  input: {
    member: number;
    dateTime?: string;
    description: string;
    price: string;
    taxPercent?: string;
    booking?: number | null;
    resourceLog?: number | null;
    memberPackage?: number | null;
  },
  at: Date,
): Promise<ChargeRow> {
  const member = await referencedRow(db, 'members', {
    id: input.member,
    account: caller.accountId,
    field: 'member',
    noun: 'Member',
  });
  if (input.dateTime !== undefined && Number.isNaN(Date.parse(input.dateTime))) {
    throw unprocessable('dateTime is not a valid timestamp', { dateTime: 'invalid' });
  }
  const belongs = async (
    table: Parameters<typeof isMembersUse>[1],
    id: number | null | undefined,
    field: string,
  ) => {
    if (!id) return;
    if (!(await isMembersUse(db, table, id, { account: member.account, member: member.id })))
      throw unprocessable(`${field} ${id} does not exist for this member`, { [field]: 'unknown' });
  };
  await belongs('bookings', input.booking, 'booking');
  await belongs('resource_logs', input.resourceLog, 'resourceLog');
  await belongs('member_packages', input.memberPackage, 'memberPackage');
  try {
    return await insertCharge(db, {
      account: member.account,
      member: member.id,
      dateTime: input.dateTime ? new Date(input.dateTime).toISOString() : at.toISOString(),
      description: input.description,
      price: parseMoney(input.price),
      taxPercent: input.taxPercent ?? (await memberTaxPercent(db, member, at.toISOString())),
      booking: input.booking,
      resourceLog: input.resourceLog,
      memberPackage: input.memberPackage,
      calculated: false,
      updatedBy: caller.memberId,
      at: at.toISOString(),
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw conflict('That booking or resource log is already charged', { alreadyCharged: true });
    throw err;
  }
}

/** A charge on an invoice is part of that invoice: it changes only by cancelling the invoice. */
export function refuseInvoiced(row: Pick<ChargeRow, 'invoice'>): void {
  if (row.invoice !== null) {
    throw conflict(`The charge is on invoice ${row.invoice}; cancel the invoice to change it`, {
      invoiced: row.invoice,
    });
  }
}

/** PUT /charges/{id}: the columns of the change, while the charge is on no invoice (409 after). */
export function chargeChanges(
  row: ChargeRow,
  body: { dateTime?: string; description?: string; price?: string; taxPercent?: string },
) {
  refuseInvoiced(row);
  return defined({
    dateTime: body.dateTime === undefined ? undefined : new Date(body.dateTime).toISOString(),
    description: body.description,
    price: body.price === undefined ? undefined : formatMoney(roundToCents(parseMoney(body.price))),
    taxPercent: body.taxPercent === undefined ? undefined : formatPercent(parseMoney(body.taxPercent)),
  });
}

/**
 * DELETE /charges/{id}: while the charge is on no invoice (409 after). A package fee is refused
 * too: package billing would charge it again; set its price to 0.00 to waive it.
 */
export async function refuseChargeDelete(trx: Db, charge: ChargeRow): Promise<void> {
  // Read again in the delete's transaction: an invoice run may have taken it since.
  const row = await chargeInvoiceAndFee(trx, charge.id);
  refuseInvoiced(row);
  if (row.feeKey !== null) {
    throw conflict('A package fee is charged again when deleted; set its price to 0.00 to waive it', {
      packageFee: true,
    });
  }
}

// ---- credits ----------------------------------------------------------------------------------

interface CreditTarget {
  resource: { id: number; type: number | null };
  scope: 'usage' | 'booking';
  date: string;
}

/**
 * Takes up to `wanted` from the member's credits that apply (right scope, period covering the
 * date, resource filter matching), the ones that lapse first first. Credits never go below
 * zero: a credit gives at most what it has left. Returns what was taken.
 */
export async function spendCredits(
  db: Db,
  member: { id: number; account: number },
  target: CreditTarget,
  wanted: Amount,
  use: { resourceLog?: number; booking?: number },
  at: string,
): Promise<Amount> {
  if (wanted <= 0n) return 0n;
  const credits = await creditsCovering(db, member.id, ['global', target.scope], target.date);
  credits.sort((a, b) => (a.untilDate ?? '9999').localeCompare(b.untilDate ?? '9999') || a.id - b.id);
  let taken = 0n;
  for (const credit of credits) {
    if (taken >= wanted) break;
    const filters = parseJson<{ type: string; resourceType?: number | null; resource?: number | null }[]>(
      credit.resources,
    );
    if (
      filters &&
      filters.length > 0 &&
      !filters.some((f) =>
        f.type === 'resource' ? f.resource === target.resource.id : f.resourceType === target.resource.type,
      )
    ) {
      continue;
    }
    const remaining = parseMoney(credit.remaining);
    const take = min(remaining, wanted - taken);
    if (take <= 0n) continue;
    // Conditional on the amount read, so two sessions stopping at once cannot both spend it.
    const updated = await writeRemaining(
      db,
      credit.id,
      credit.remaining,
      formatMoney(max(remaining - take, 0n)),
      at,
    );
    if (!updated) continue;
    await emitMemberCredit(db, 'memberCredit_updated', updated);
    await insertCreditUse(db, {
      account: member.account,
      member: member.id,
      memberCredit: credit.id,
      resourceLog: use.resourceLog ?? null,
      booking: use.booking ?? null,
      amount: formatMoney(take),
      createdAt: at,
    });
    taken += take;
  }
  return taken;
}

// ---- usage and booking charges ----------------------------------------------------------------

/** Units of `granularity` seconds that `seconds` starts (rounded up). */
export function unitsOf(seconds: number, granularity: number): bigint {
  if (seconds <= 0) return 0n;
  return BigInt(Math.ceil(seconds / Math.max(1, granularity)));
}

/** The covering permission with the best discount among those allowing the moment. */
function bestPermission(
  permissions: CoveringPermission[],
  at: ReturnType<typeof localTime>,
  field: 'usageFeeDiscountPercent' | 'bookingFeeDiscountPercent',
): CoveringPermission | null {
  const allowing = permissions.filter((p) => timeWindow(p, at).allowed);
  const pool = allowing.length > 0 ? allowing : permissions;
  let best: CoveringPermission | null = null;
  for (const p of pool) if (!best || parseMoney(p[field]) > parseMoney(best[field])) best = p;
  return best;
}

export interface UsageBill {
  /** Price before discount and credits. */
  gross: string;
  discountPercent: string;
  creditUsed: string;
  charge: ChargeRow | null;
}

type Resource = Selectable<ResourcesTable>;
type Member = Selectable<MembersTable>;

/**
 * What a usage or a booking costs the member: `gross` less the best discount of the covering
 * permissions at `startedAt`, paid from the member's credits of the scope first; the rest
 * becomes a calculated charge. Shared by sessions and bookings.
 */
async function billUse(
  trx: Db,
  ctx: BillingContext,
  bill: {
    member: Member;
    resource: Resource;
    gross: Amount;
    startedAt: string;
    scope: 'usage' | 'booking';
    use: { resourceLog?: number; booking?: number };
    charge: { dateTime: string; description: string };
  },
): Promise<UsageBill> {
  const { member, resource, gross, scope, use } = bill;
  const at = ctx.clock.now().toISOString();
  const start = localTime(new Date(bill.startedAt), await spaceTimeZone(trx, resource.space));
  const permissions = await coveringPermissions(trx, member.id, resource, start.date);
  const field = scope === 'usage' ? 'usageFeeDiscountPercent' : 'bookingFeeDiscountPercent';
  const permission = bestPermission(permissions, start, field);
  const discount = parseMoney(permission?.[field] ?? '0');
  const price = roundToCents(gross - percentOf(gross, discount));
  const credit = await spendCredits(trx, member, { resource, scope, date: start.date }, price, use, at);
  const rest = price - credit;
  const charge =
    rest > 0n
      ? await insertCharge(trx, {
          account: member.account,
          member: member.id,
          ...bill.charge,
          price: rest,
          taxPercent: await memberTaxPercent(trx, member, at),
          ...use,
          memberPackage: permission?.memberPackage ?? null,
          calculated: true,
          updatedBy: null,
          at,
        })
      : null;
  return {
    gross: formatMoney(roundToCents(gross)),
    discountPercent: formatPercent(discount),
    creditUsed: formatMoney(credit),
    charge,
  };
}

/**
 * The resource and member of a use not billed yet (no charge and no credit use for it), or null
 * when it is billed or either is gone.
 */
async function unbilled(
  trx: Db,
  column: 'resourceLog' | 'booking',
  id: number,
  resourceId: number,
  memberId: number,
) {
  const billed = (await chargeOfUse(trx, column, id)) ?? (await creditUseOf(trx, column, id));
  if (billed) return null;
  const resource = await rowById(trx, 'resources', resourceId);
  const member = await rowById(trx, 'members', memberId);
  return resource && member ? { resource, member } : null;
}

/** Bills one use of a resource (a session, a booking) by its id, once: null when nothing is to bill. */
type UseBiller = (trx: Db, ctx: BillingContext, id: number) => Promise<UsageBill | null>;

/**
 * Bills a stopped machine session (resource log): pricePerUsage, plus busy and idle time each in
 * units of its granularity rounded up (at least pricingMinDurationSeconds in all), minus the
 * covering permission's usage discount, paid from the member's credits first; the rest becomes a
 * charge. Runs once per log: a second call returns null. The hub calls it when a session stops.
 */
export const chargeForStoppedSession: UseBiller = async (trx, ctx, logId) => {
  const log = await rowById(trx, 'resource_logs', logId);
  if (!log?.stoppedAt || log.member === null || log.type !== 'allowed') return null;
  const found = await unbilled(trx, 'resourceLog', log.id, log.resource, log.member);
  if (!found) return null;
  const { resource } = found;
  const duration = Math.max(0, Math.round((Date.parse(log.stoppedAt) - Date.parse(log.createdAt)) / 1000));
  const billable = Math.max(duration, resource.pricingMinDurationSeconds);
  const idle = Math.min(Math.max(0, log.idleDurationSeconds ?? 0), billable);
  const busy = billable - idle;
  const gross =
    parseMoney(resource.pricePerUsage) +
    unitsOf(busy, resource.pricePerTimeBusySeconds) * parseMoney(resource.pricePerTimeBusy) +
    unitsOf(idle, resource.pricePerTimeIdleSeconds) * parseMoney(resource.pricePerTimeIdle);
  if (gross <= 0n) return null;
  return billUse(trx, ctx, {
    ...found,
    gross,
    startedAt: log.createdAt,
    scope: 'usage',
    use: { resourceLog: log.id },
    // Minutes begun: a session of under half a second is a use too, "1 min", never "0 min".
    charge: {
      dateTime: log.stoppedAt,
      description: `${resource.name}: ${Math.max(1, Math.ceil(duration / 60))} min`,
    },
  });
};

/**
 * Bills a booking of a resource with pricePerBooking (per pricePerBookingSeconds, rounded up),
 * minus the booking discount of the covering permission, from booking credits first. Once per
 * booking; marks the booking `charged`.
 */
export const chargeForBooking: UseBiller = async (trx, ctx, bookingId) => {
  const booking = await rowById(trx, 'bookings', bookingId);
  if (!booking || booking.state === 'cancelled') return null;
  const found = await unbilled(trx, 'booking', booking.id, booking.resource, booking.member);
  if (!found) return null;
  const { resource } = found;
  const seconds = Math.max(0, (Date.parse(booking.untilDateTime) - Date.parse(booking.fromDateTime)) / 1000);
  const gross = unitsOf(seconds, resource.pricePerBookingSeconds) * parseMoney(resource.pricePerBooking);
  if (gross <= 0n) return null;
  const bill = await billUse(trx, ctx, {
    ...found,
    gross,
    startedAt: booking.fromDateTime,
    scope: 'booking',
    use: { booking: booking.id },
    charge: {
      dateTime: booking.fromDateTime,
      description: `Booking ${resource.name}: ${Math.ceil(seconds / 60)} min`,
    },
  });
  await markBookingCharged(trx, booking.id);
  return bill;
};

/** charge_created/updated/deleted {charge, member}. */
export const emitCharge = recordEvents<ChargeRow, 'charge'>(async (db, row) => ({
  charge: chargeRecord(row),
  member: await memberEventRecord(db, row.member),
}));

/** charge_updated for each of these charges (they went on an invoice or came off one). */
export async function emitChargesUpdated(db: Db, ids: number[]) {
  if (ids.length === 0) return;
  const rows = await chargesByIds(db, ids);
  for (const row of rows) await emitCharge(db, 'charge_updated', row);
}

/** The billing port for the areas that record use (context.ts `UsageCharges`). */
export function usageCharges(ctx: BillingContext): UsageCharges {
  return {
    chargeBooking: async (trx, bookingId) => {
      await chargeForBooking(trx, ctx, bookingId);
    },
    chargeSession: async (trx, logId) => {
      await chargeForStoppedSession(trx, ctx, logId);
    },
    chargeSessionExtra: async (trx, extra) => {
      const member = await rowById(trx, 'members', extra.memberId);
      if (!member) return;
      await insertCharge(trx, {
        account: member.account,
        member: member.id,
        dateTime: extra.at,
        description: extra.description,
        price: extra.price,
        taxPercent: await memberTaxPercent(trx, member, extra.at),
        resourceLog: extra.logId,
        // One bridge charge per session, whatever the bridge resends.
        feeKey: `bridgeCharge:${extra.logId}`,
        calculated: false,
        updatedBy: null,
        at: extra.at,
      });
    },
  };
}
