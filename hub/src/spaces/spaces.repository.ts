import type { BillingSettingsRecord, HolidayRecord, OpeningHour, SpaceRecord } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { bool, defined, flag, now } from '../db/crud.js';
import type { HolidaysTable, SpaceBillingSettingsTable, SpacesTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../identity/caller.js';
import { notFound } from '../errors.js';
import type { TokenBox } from '../secrets.js';

export type SpaceRow = Selectable<SpacesTable>;
export type HolidayRow = Selectable<HolidaysTable>;
export type BillingSettingsRow = Selectable<SpaceBillingSettingsTable>;

export const calendarPath = (token: string) => `/api/v1/calendar/${token}.ics`;

/** The space record; the calendar token and URL only for admins (`base` = public origin). */
export function spaceRecord(row: SpaceRow, caller: Caller, box: TokenBox, base: string): SpaceRecord {
  const token = isAdmin(caller) && row.calendarTokenEncrypted ? box.open(row.calendarTokenEncrypted) : null;
  return {
    id: row.id,
    account: row.account,
    name: row.name,
    shortName: row.shortName,
    timezone: row.timezone,
    locale: row.locale,
    state: row.state,
    emailAddress: row.emailAddress,
    website: row.website,
    phone: row.phone,
    infoText: row.infoText,
    calendarToken: token,
    calendarUrl: token ? `${base}${calendarPath(token)}` : null,
    bookingSlotsPerHour: row.bookingSlotsPerHour,
    bookingWindowMinHours: row.bookingWindowMinHours,
    bookingWindowMaxDays: row.bookingWindowMaxDays,
    bookingLockInHours: row.bookingLockInHours,
    bookingMaxMinutesPerMemberDay: row.bookingMaxMinutesPerMemberDay,
    bookingMaxMinutesPerMemberWeek: row.bookingMaxMinutesPerMemberWeek,
    bookingOpeningHours: bool(row.bookingOpeningHours),
    bookingExclusiveMinutes: row.bookingExclusiveMinutes,
    bookingRefundable: bool(row.bookingRefundable),
    bookingTermsOfService: row.bookingTermsOfService,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** Spaces the caller sees: superusers all, admins their account's, members their own space. */
export function visibleSpaces(db: Db, caller: Caller) {
  let query = db.selectFrom('spaces');
  if (!caller.superuser) query = query.where('spaces.account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('spaces.id', '=', caller.spaceId);
  return query;
}

export async function findSpace(db: Db, caller: Caller, id: number): Promise<SpaceRow> {
  const row = await visibleSpaces(db, caller).selectAll().where('spaces.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Space');
  return row;
}

/** Space fields from an API body: booleans as 0/1, only what was sent. */
export function spaceColumns(input: Record<string, unknown>) {
  return defined({
    ...input,
    bookingOpeningHours: flag(input.bookingOpeningHours as boolean | undefined),
    bookingRefundable: flag(input.bookingRefundable as boolean | undefined),
  });
}

/** Creates a space and its billing settings in one transaction. */
export async function createSpace(db: Db, caller: Caller, input: Record<string, unknown>): Promise<SpaceRow> {
  return db.transaction().execute(async (trx) => {
    const at = now();
    const row = await trx
      .insertInto('spaces')
      .values({
        ...(spaceColumns(input) as any),
        account: caller.accountId,
        createdAt: at,
        updatedAt: at,
        updatedBy: caller.memberId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await ensureBillingSettings(trx, row);
    return row;
  });
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

export async function replaceOpeningHours(db: Db, space: SpaceRow, hours: OpeningHour[], callerId: number) {
  await db.transaction().execute(async (trx) => {
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
      .set((eb) => ({ lockVersion: eb('lockVersion', '+', 1), updatedAt: now(), updatedBy: callerId }))
      .where('id', '=', space.id)
      .execute();
  });
}

// ---- holidays ----

export function holidayRecord(row: HolidayRow): HolidayRecord {
  return {
    id: row.id,
    space: row.space,
    title: row.title,
    fromDateTime: row.fromDateTime,
    untilDateTime: row.untilDateTime,
    affects: row.affects,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

export async function findHoliday(db: Db, space: SpaceRow, id: number): Promise<HolidayRow> {
  const row = await db
    .selectFrom('holidays')
    .selectAll()
    .where('space', '=', space.id)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Holiday');
  return row;
}

// ---- billing settings ----

export function billingSettingsRecord(row: BillingSettingsRow): BillingSettingsRecord {
  return {
    id: row.id,
    space: row.space,
    account: row.account,
    currency: row.currency,
    taxPercent: row.taxPercent,
    invoiceNumberPrefix: row.invoiceNumberPrefix,
    nextInvoiceNumber: row.nextInvoiceNumber,
    invoiceHeader: row.invoiceHeader,
    invoiceFooter: row.invoiceFooter,
    defaultInvoiceDeadline: row.defaultInvoiceDeadline,
    defaultInvoiceDeadlineUnit: row.defaultInvoiceDeadlineUnit,
    statementName: row.statementName,
    stripeUser: row.stripeUser,
    stripePublicKey: row.stripePublicKey,
    stripeName: row.stripeName,
    stripeLivemode: bool(row.stripeLivemode),
    enableSepa: bool(row.enableSepa),
    sepaCreditorId: row.sepaCreditorId,
    sepaIban: row.sepaIban,
    sepaAccountOwnerName: row.sepaAccountOwnerName,
    sepaMandateText: row.sepaMandateText,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/**
 * The billing settings of a space, created with defaults (EUR, invoice number 1) when the space
 * has none yet (spaces made by `init` before this area existed). Billing may call this too.
 */
export async function ensureBillingSettings(
  db: Db,
  space: { id: number; account: number },
): Promise<BillingSettingsRow> {
  const existing = await db
    .selectFrom('space_billing_settings')
    .selectAll()
    .where('space', '=', space.id)
    .executeTakeFirst();
  if (existing) return existing;
  const at = now();
  try {
    return await db
      .insertInto('space_billing_settings')
      .values({ space: space.id, account: space.account, createdAt: at, updatedAt: at, updatedBy: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    // Two first reads at once: the other one made the row.
    const row = await db
      .selectFrom('space_billing_settings')
      .selectAll()
      .where('space', '=', space.id)
      .executeTakeFirst();
    if (row) return row;
    throw err;
  }
}

export async function findBillingSettings(db: Db, caller: Caller, id: number): Promise<BillingSettingsRow> {
  const row = await db
    .selectFrom('space_billing_settings')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Space billing settings');
  await findSpace(db, caller, row.space);
  return row;
}

export function billingColumns(input: Record<string, unknown>) {
  return defined({
    ...input,
    stripeLivemode: flag(input.stripeLivemode as boolean | undefined),
    enableSepa: flag(input.enableSepa as boolean | undefined),
  });
}

/** What `DELETE .../billing-settings/stripe` clears: the payment-provider connection only. */
export const stripeCleared = { stripeUser: null, stripePublicKey: null, stripeName: null, stripeLivemode: 0 };
