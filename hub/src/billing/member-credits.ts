import type { Selectable } from 'kysely';
import { type Db, jsonText, parseJson } from '../db/crud.js';
import { insertRow } from '../db/collection-rows.js';
import { columnsOf, recordEvents, recordOf } from '../db/records.js';
import { unprocessable } from '../errors.js';
import { formatMoney, max, parseMoney } from '../kernel/money.js';
import type { MemberCreditsTable } from '../db/schema.js';
import { memberEventRecord } from '../identity/members.js';
import { chargesOfUses } from './charges.repository.js';
import { type creditsOfMember, creditsGrantedBy } from './credits.repository.js';

export type MemberCreditRow = Selectable<MemberCreditsTable>;

/** A member's credit from a package credit (what it gave, what is left, when it applies). */
export function memberCreditRecord(row: MemberCreditRow) {
  return {
    ...columnsOf(row, ['id', 'account', 'member', 'memberPackage', 'packageCredit', 'scope']),
    resources: parseJson<unknown[]>(row.resources) ?? [],
    ...recordOf(row, ['amount', 'remaining', 'fromDate', 'untilDate', 'notes']),
  };
}

/** memberCredit_created when package billing grants a credit; _updated when a charge spends from it. */
export const emitMemberCredit = recordEvents<MemberCreditRow, 'memberCredit'>(async (db, row) => ({
  memberCredit: memberCreditRecord(row),
  member: await memberEventRecord(db, row.member),
}));

/** memberCredit_deleted for every member credit that a delete of its source is about to take along. */
export async function emitCreditsDeleted(db: Db, source: 'memberPackage' | 'packageCredit', id: number) {
  const rows = await creditsGrantedBy(db, source, id);
  for (const row of rows) await emitMemberCredit(db, 'memberCredit_deleted', row);
}

// ---- credits given by hand (/members/{id}/credits) ----------------------------------------

export interface MemberCreditInput {
  amount?: string;
  scope?: string;
  resources?: unknown[];
  fromDate?: string;
  untilDate?: string | null;
  notes?: string | null;
}

function refuseBadPeriod(fromDate: string, untilDate: string | null) {
  if (untilDate !== null && untilDate <= fromDate)
    throw unprocessable('untilDate must be after fromDate', { invalidRange: true });
}

/** Credits whose period includes `today` (used-up ones too: the member sees what they had). */
export function currentCredits<Q extends ReturnType<typeof creditsOfMember>>(base: Q, today: string): Q {
  return base
    .where('fromDate', '<=', today)
    .where((eb) => eb.or([eb('untilDate', 'is', null), eb('untilDate', '>', today)])) as Q;
}

/** A credit an admin gives a member by hand: all of it remains; memberCredit_created. */
export async function createMemberCredit(
  trx: Db,
  input: {
    member: { id: number; account: number };
    body: MemberCreditInput & { amount: string };
    today: string;
    stamp: { at: string; by: number | null };
  },
): Promise<MemberCreditRow> {
  const { member, body } = input;
  const fromDate = body.fromDate ?? input.today;
  const untilDate = body.untilDate ?? null;
  refuseBadPeriod(fromDate, untilDate);
  const amount = formatMoney(parseMoney(body.amount));
  const row = await insertRow(
    trx,
    'member_credits',
    {
      account: member.account,
      member: member.id,
      memberPackage: null,
      packageCredit: null,
      scope: body.scope ?? 'global',
      resources: jsonText(body.resources ?? []),
      amount,
      remaining: amount,
      fromDate,
      untilDate,
      notes: body.notes ?? null,
    },
    input.stamp,
  );
  await emitMemberCredit(trx, 'memberCredit_created', row);
  return row;
}

/**
 * The columns a change of a credit writes: a new amount moves what remains by the difference
 * (never below zero), so what was already spent stays spent.
 */
export function memberCreditChanges(row: MemberCreditRow, body: MemberCreditInput): Record<string, unknown> {
  const fromDate = body.fromDate ?? row.fromDate;
  const untilDate = body.untilDate === undefined ? row.untilDate : body.untilDate;
  refuseBadPeriod(fromDate, untilDate);
  const columns: Record<string, unknown> = {};
  if (body.amount !== undefined) {
    const amount = parseMoney(body.amount);
    const spent = parseMoney(row.amount) - parseMoney(row.remaining);
    columns.amount = formatMoney(amount);
    columns.remaining = formatMoney(max(amount - spent, 0n));
  }
  if (body.scope !== undefined) columns.scope = body.scope;
  if (body.resources !== undefined) columns.resources = jsonText(body.resources);
  if (body.fromDate !== undefined) columns.fromDate = body.fromDate;
  if (body.untilDate !== undefined) columns.untilDate = body.untilDate;
  if (body.notes !== undefined) columns.notes = body.notes;
  return columns;
}

/** What consumed a credit: its uses, each with the charge of its session or booking (if any). */
export async function creditUseRecords(
  db: Db,
  rows: {
    id: number;
    member: number;
    memberCredit: number;
    amount: string;
    resourceLog: number | null;
    booking: number | null;
    createdAt: string;
  }[],
) {
  const logs = rows.flatMap((r) => (r.resourceLog === null ? [] : [r.resourceLog]));
  const bookings = rows.flatMap((r) => (r.booking === null ? [] : [r.booking]));
  const charges = await chargesOfUses(db, logs, bookings);
  const byLog = new Map(charges.filter((c) => c.resourceLog !== null).map((c) => [c.resourceLog, c.id]));
  const byBooking = new Map(charges.filter((c) => c.booking !== null).map((c) => [c.booking, c.id]));
  return rows.map((r) => ({
    id: r.id,
    member: r.member,
    memberCredit: r.memberCredit,
    amount: r.amount,
    resourceLog: r.resourceLog,
    booking: r.booking,
    charge:
      (r.resourceLog !== null ? byLog.get(r.resourceLog) : undefined) ??
      (r.booking !== null ? byBooking.get(r.booking) : undefined) ??
      null,
    createdAt: r.createdAt,
  }));
}
