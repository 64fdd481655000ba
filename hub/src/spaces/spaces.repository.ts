import type { BillingSettingsRecord, HolidayRecord, OpeningHour, SpaceRecord } from '@makerspace/shared';
import { type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import { insertRow } from '../db/collection-rows.js';
import { type Db, firstWhere } from '../db/crud.js';
import { defined } from '../db/crud.js';
import { columnsOf, flags, recordOf, stampColumns } from '../db/records.js';
import type { Database, HolidaysTable, SpaceBillingSettingsTable, SpacesTable } from '../db/schema.js';
import { conflict, staleLockVersion, unprocessable } from '../errors.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { hashToken, type TokenBox } from '../secrets.js';
import { writeColumns } from '../db/crud.js';
import { localDateTime } from '../kernel/zoned-time.js';

export type SpaceRow = Selectable<SpacesTable>;
export type HolidayRow = Selectable<HolidaysTable>;
export type BillingSettingsRow = Selectable<SpaceBillingSettingsTable>;
/** Who wrote and when (the hub's clock). */
export type Stamp = { at: string; by: number | null };

export const calendarPath = (token: string) => `/api/v1/calendar/${token}.ics`;

const spaceFields = [
  'id',
  'account',
  'name',
  'shortName',
  'timezone',
  'locale',
  'state',
  'emailAddress',
  'website',
  'phone',
  'infoText',
  'bookingSlotsPerHour',
  'bookingWindowMinHours',
  'bookingWindowMaxDays',
  'bookingLockInHours',
  'bookingMaxMinutesPerMemberDay',
  'bookingMaxMinutesPerMemberWeek',
  'bookingExclusiveMinutes',
  'bookingTermsOfService',
  'occupancyLimit',
  ...stampColumns,
] as const;

/** The space record; the calendar token and URL only for admins (`base` = public origin). */
export function spaceRecord(row: SpaceRow, caller: Caller, box: TokenBox, base: string): SpaceRecord {
  const token = isAdmin(caller) && row.calendarTokenEncrypted ? box.open(row.calendarTokenEncrypted) : null;
  return {
    ...columnsOf(row, spaceFields),
    ...flags(row, ['bookingOpeningHours', 'bookingRefundable']),
    calendarToken: token,
    calendarUrl: token ? `${base}${calendarPath(token)}` : null,
  };
}

/** Spaces the caller sees: superusers all, admins their account's, members their own space. */
export function visibleSpaces(db: Db, caller: Caller) {
  let query = db.selectFrom('spaces');
  if (!caller.superuser) query = query.where('spaces.account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('spaces.id', '=', caller.spaceId);
  return query;
}

/** Space fields from an API body: booleans as 0/1, only what was sent. */
export const spaceColumns = (input: Record<string, unknown>) =>
  writeColumns(input, ['bookingOpeningHours', 'bookingRefundable']);

/** Creates a space and its billing settings (in the caller's transaction). */
export async function createSpace(trx: Db, caller: Caller, input: Record<string, unknown>, at: string) {
  const row = await insertRow(
    trx,
    'spaces',
    { ...spaceColumns(input), account: caller.accountId },
    { at, by: caller.memberId },
  );
  await ensureBillingSettings(trx, row, at);
  return row;
}

/** A space with resources or members stays (409 naming them). */
export async function refuseSpaceDelete(trx: Db, row: SpaceRow) {
  const count = async (table: 'resources' | 'members') =>
    Number(
      (
        await trx
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('space', '=', row.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const [resources, members] = [await count('resources'), await count('members')];
  if (resources === 0 && members === 0) return;
  const blockers = [
    resources > 0 ? `${resources} resource(s)` : null,
    members > 0 ? `${members} member(s)` : null,
  ].filter(Boolean);
  throw conflict(`The space still has ${blockers.join(' and ')}; move or delete them first`, {
    resources,
    members,
  });
}

/** What `embed=` adds to a space record: its opening hours, upcoming holidays, billing settings. */
export async function spaceEmbeds(db: Db, row: SpaceRow, embeds: readonly string[], at: Date) {
  const embedded: Record<string, unknown> = {};
  if (embeds.includes('openingHours')) embedded.openingHours = await openingHoursOf(db, row.id);
  if (embeds.includes('holidays')) {
    const rows = await upcomingHolidays(db, row, at).orderBy('fromDateTime').limit(1000).execute();
    embedded.holidays = rows.map(holidayRecord);
  }
  if (embeds.includes('billingSettings')) {
    const settings = await ensureBillingSettings(db, row, at.toISOString());
    embedded.billingSettings = billingSettingsRecord(settings);
  }
  return embedded;
}

// ---- calendar ----

/** Sets (a new secret) or clears (null) the space's calendar token. */
export async function setCalendarToken(
  db: Db,
  box: TokenBox,
  spaceId: number,
  token: string | null,
  stamp: Stamp,
) {
  await db
    .updateTable('spaces')
    .set({
      calendarTokenHash: token === null ? null : hashToken(token),
      calendarTokenEncrypted: token === null ? null : box.seal(token),
      updatedAt: stamp.at,
      updatedBy: stamp.by,
    })
    .where('id', '=', spaceId)
    .execute();
}

export function spaceOfCalendarToken(db: Db, token: string) {
  return firstWhere(db, 'spaces', { calendarTokenHash: hashToken(token) });
}

/** The space's IANA time zone (UTC when the space is unknown). */
export async function spaceTimeZone(db: Db, spaceId: number): Promise<string> {
  const row = await db.selectFrom('spaces').select('timezone').where('id', '=', spaceId).executeTakeFirst();
  return row?.timezone ?? 'UTC';
}

/** The time zones of these spaces. */
export function spaceTimezones(db: Db, spaceIds: number[]) {
  return db.selectFrom('spaces').select(['id', 'timezone']).where('id', 'in', spaceIds).execute();
}

export function spaceById(db: Db, id: number): Promise<SpaceRow> {
  return db.selectFrom('spaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The space's name (undefined when the space is unknown). */
export async function spaceName(db: Db, spaceId: number): Promise<string | undefined> {
  const row = await db.selectFrom('spaces').select('name').where('id', '=', spaceId).executeTakeFirst();
  return row?.name;
}

// ---- opening hours ----

export async function openingHoursOf(db: Db, spaceId: number): Promise<OpeningHour[]> {
  return db
    .selectFrom('opening_hours')
    .select(['dayOfWeek', 'fromTime', 'untilTime'])
    .where('space', '=', spaceId)
    .orderBy('dayOfWeek')
    .orderBy('fromTime')
    .execute();
}

export async function replaceOpeningHours(trx: Db, space: SpaceRow, hours: OpeningHour[], stamp: Stamp) {
  await trx.deleteFrom('opening_hours').where('space', '=', space.id).execute();
  if (hours.length > 0) {
    await trx
      .insertInto('opening_hours')
      .values(hours.map((h) => ({ space: space.id, ...h })))
      .execute();
  }
  // The space changed as a whole: bump its version so cached copies notice.
  await trx
    .updateTable('spaces')
    .set((eb) => ({ lockVersion: eb('lockVersion', '+', 1), updatedAt: stamp.at, updatedBy: stamp.by }))
    .where('id', '=', space.id)
    .execute();
}

// ---- holidays ----

export function holidayRecord(row: HolidayRow): HolidayRecord {
  return recordOf(row, ['id', 'space', 'title', 'fromDateTime', 'untilDateTime', 'affects']);
}

/** The space's holidays, to narrow further. */
function holidaysOf(db: Db, spaceId: number) {
  return db.selectFrom('holidays').where('space', '=', spaceId);
}

/** The space's holidays that are not over on its wall clock at `at`. */
export function upcomingHolidays(db: Db, space: SpaceRow, at: Date) {
  return holidaysOf(db, space.id).selectAll().where('untilDateTime', '>=', localDateTime(at, space.timezone));
}

/** Of a space's holidays (`base`), those not over on the space's wall clock at `at`. */
export async function upcomingOnly(
  db: Db,
  base: SelectQueryBuilder<Database, 'holidays', object>,
  spaceId: number,
  at: Date,
) {
  const space = await db
    .selectFrom('spaces')
    .select('timezone')
    .where('id', '=', spaceId)
    .executeTakeFirstOrThrow();
  return base.where('holidays.untilDateTime', '>=', localDateTime(at, space.timezone));
}

/** The space's holidays ending after `localFrom` (a wall-clock time), when, and their titles. */
export function holidaysEndingAfter(db: Db, spaceId: number, localFrom: string) {
  return holidaysOf(db, spaceId)
    .select(['fromDateTime', 'untilDateTime', 'title'])
    .where('untilDateTime', '>', localFrom)
    .execute();
}

/** The space's holidays, by start (at most 1000). */
export function holidaysOfSpace(db: Db, spaceId: number) {
  return holidaysOf(db, spaceId).selectAll().orderBy('fromDateTime').limit(1000).execute();
}

function checkHolidayRange(from: string, until: string) {
  if (until <= from) throw unprocessable('untilDateTime must be after fromDateTime', { invalidRange: true });
}

export interface HolidayInput {
  title?: string | null;
  fromDateTime: string;
  untilDateTime: string;
  affects?: string;
}

export function createHoliday(trx: Db, space: SpaceRow, input: HolidayInput, stamp: Stamp) {
  checkHolidayRange(input.fromDateTime, input.untilDateTime);
  return insertRow(
    trx,
    'holidays',
    {
      account: space.account,
      space: space.id,
      title: input.title ?? null,
      fromDateTime: input.fromDateTime,
      untilDateTime: input.untilDateTime,
      affects: input.affects ?? 'all',
    },
    stamp,
  );
}

/** The columns a holiday update writes; the range it leaves must still run forwards. */
export function holidayChanges(row: HolidayRow, input: Partial<HolidayInput> & { lockVersion?: number }) {
  const { lockVersion: _, ...fields } = input;
  checkHolidayRange(fields.fromDateTime ?? row.fromDateTime, fields.untilDateTime ?? row.untilDateTime);
  return defined(fields);
}

// ---- billing settings ----

/** The billing settings' columns a record shows as stored (then its stamps). */
const billingSettingsFields = [
  'id',
  'space',
  'account',
  'currency',
  'taxPercent',
  'invoiceNumberPrefix',
  'nextInvoiceNumber',
  'invoiceHeader',
  'invoiceFooter',
  'defaultInvoiceDeadline',
  'defaultInvoiceDeadlineUnit',
  'statementName',
  'stripeUser',
  'stripePublicKey',
  'stripeName',
  'sepaCreditorId',
  'sepaIban',
  'sepaAccountOwnerName',
  'sepaMandateText',
  'sepaBic',
  'invoiceName',
  'invoiceAddress',
  'invoiceTaxId',
  'invoiceLogoType',
] as const;

export function billingSettingsRecord(row: BillingSettingsRow): BillingSettingsRecord {
  return {
    ...recordOf(row, billingSettingsFields),
    ...flags(row, ['stripeLivemode', 'enableSepa']),
    // The secrets themselves are sealed and never answered.
    stripeSecretKeySet: row.stripeSecretKey !== null,
    stripeWebhookSecretSet: row.stripeWebhookSecret !== null,
  };
}

/** Billing settings of the spaces the caller sees. */
/** Billing settings (bank account, Stripe keys) are the admins': plain members see none. */
export function visibleBillingSettings(db: Db, caller: Caller) {
  const query = db
    .selectFrom('space_billing_settings')
    .where('space_billing_settings.space', 'in', visibleSpaces(db, caller).select('spaces.id'));
  return isAdmin(caller) ? query : query.where(sql<boolean>`1 = 0`);
}

/**
 * The billing settings of a space, created with defaults (EUR, invoice number 1) when the space
 * has none yet (spaces made by `init` before this area existed). Billing may call this too.
 */
export async function ensureBillingSettings(
  db: Db,
  space: { id: number; account: number },
  at: string,
): Promise<BillingSettingsRow> {
  const existing = () =>
    db.selectFrom('space_billing_settings').selectAll().where('space', '=', space.id).executeTakeFirst();
  const found = await existing();
  if (found) return found;
  try {
    return await insertRow(
      db,
      'space_billing_settings',
      { space: space.id, account: space.account },
      { at, by: null },
    );
  } catch (err) {
    // Two first reads at once: the other one made the row.
    const row = await existing();
    if (row) return row;
    throw err;
  }
}

/**
 * The space's billing settings for a change by the space's path: made with defaults when missing,
 * unless the change could not apply to them (a lockVersion other than a new row's 1: 409, and
 * nothing is written).
 */
export async function billingSettingsToChange(
  db: Db,
  space: { id: number; account: number },
  lockVersion: number,
  at: string,
): Promise<BillingSettingsRow> {
  const found = await firstWhere(db, 'space_billing_settings', { space: space.id });
  if (found) return found;
  if (lockVersion !== 1) throw staleLockVersion();
  return ensureBillingSettings(db, space, at);
}

export const billingColumns = (input: Record<string, unknown>) =>
  writeColumns(input, ['stripeLivemode', 'enableSepa']);

/** `DELETE .../billing-settings/stripe`: clears the payment-provider connection only. */
export async function clearStripe(db: Db, settingsId: number, stamp: Stamp) {
  await db
    .updateTable('space_billing_settings')
    .set((eb) => ({
      stripeUser: null,
      stripePublicKey: null,
      stripeName: null,
      stripeLivemode: 0,
      stripeSecretKey: null,
      stripeWebhookSecret: null,
      lockVersion: eb('lockVersion', '+', 1),
      updatedAt: stamp.at,
      updatedBy: stamp.by,
    }))
    .where('id', '=', settingsId)
    .execute();
}

/** A space's id and account, if it exists (spaces). */
export function spaceAccount(db: Db, spaceId: number) {
  return db.selectFrom('spaces').select(['id', 'account']).where('id', '=', spaceId).executeTakeFirst();
}
