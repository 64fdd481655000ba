import type { BookingRecord, WebhookEventType } from '@makerspace/shared';
import { type Selectable, sql } from 'kysely';
import type { HubContext } from '../context.js';
import type { Db } from '../db/crud.js';
import { bool, defined, now, updateLocked } from '../db/crud.js';
import type { BookingsTable, ResourcesTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../identity/caller.js';
import { conflict, forbidden, notFound, unprocessable } from '../errors.js';
import { chargeForBooking } from '../billing/charges.js';
import { emitEvent } from '../db/outbox.js';
import { memberEventRecord } from '../identity/members.js';
import { resourceEventRecordById } from '../resources/resources.js';
import { holidaysDuring, withinOpeningHours } from './schedule.js';
import { openingHoursOf, type SpaceRow } from './spaces.repository.js';
import { addDays, localDate, localDateTime, wallTime, zonedInstant } from './zoned-time.js';

export type BookingRow = Selectable<BookingsTable>;
type ResourceRow = Selectable<ResourcesTable>;

export function bookingRecord(row: BookingRow): BookingRecord {
  return {
    id: row.id,
    account: row.account,
    resource: row.resource,
    member: row.member,
    fromDateTime: row.fromDateTime,
    untilDateTime: row.untilDateTime,
    state: row.state,
    charged: bool(row.charged),
    notes: row.notes,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** Bookings the caller sees: admins their account's, members their own (DESIGN 4). */
export function visibleBookings(db: Db, caller: Caller) {
  let query = db.selectFrom('bookings');
  if (!caller.superuser) query = query.where('bookings.account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('bookings.member', '=', caller.memberId);
  return query;
}

export async function findBooking(db: Db, caller: Caller, id: number): Promise<BookingRow> {
  const row = await visibleBookings(db, caller).selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Booking');
  return row;
}

/**
 * Runs `fn` so that no other booking write for this resource can interleave between its
 * overlap check and its insert. PostgreSQL: a transaction that locks the resource row
 * (SELECT ... FOR UPDATE). SQLite: BEGIN IMMEDIATE takes the database write lock before the
 * check (Kysely's SQLite driver also keeps the one connection for the whole callback).
 */
export async function withResourceLock<T>(ctx: HubContext, resourceId: number, fn: (db: Db) => Promise<T>) {
  if (ctx.storage.dialect === 'postgres') {
    return ctx.db.transaction().execute(async (trx) => {
      await sql`select id from resources where id = ${resourceId} for update`.execute(trx);
      return fn(trx);
    });
  }
  return ctx.db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await fn(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
  });
}

interface Slot {
  from: Date;
  until: Date;
}

/** The rules a booking's time must follow, checked before taking the lock. */
async function checkTimes(db: Db, space: SpaceRow, slot: Slot, privileged: boolean, at: Date) {
  const { from, until } = slot;
  if (until.getTime() <= from.getTime()) {
    throw unprocessable('untilDateTime must be after fromDateTime', {
      rule: 'invalidRange',
      invalidRange: true,
    });
  }
  if (!privileged) {
    const earliest = at.getTime() + space.bookingWindowMinHours * 3_600_000;
    const latest = at.getTime() + space.bookingWindowMaxDays * 86_400_000;
    if (from.getTime() < earliest || from.getTime() > latest) {
      throw unprocessable(
        `Bookings must start between ${space.bookingWindowMinHours} hours and ${space.bookingWindowMaxDays} days from now`,
        {
          rule: 'outsideBookingWindow',
          outsideBookingWindow: true,
          bookingWindowMinHours: space.bookingWindowMinHours,
          bookingWindowMaxDays: space.bookingWindowMaxDays,
        },
      );
    }
  }
  const slotMinutes = 60 / space.bookingSlotsPerHour;
  for (const t of [from, until]) {
    const w = wallTime(t, space.timezone);
    if (w.second !== 0 || t.getUTCMilliseconds() !== 0 || (w.hour * 60 + w.minute) % slotMinutes !== 0) {
      throw unprocessable(`Bookings start and end on ${slotMinutes}-minute slots`, {
        rule: 'notAlignedToSlots',
        notAlignedToSlots: true,
        slotMinutes,
      });
    }
  }
  const holidays = await db
    .selectFrom('holidays')
    .select(['fromDateTime', 'untilDateTime', 'title'])
    .where('space', '=', space.id)
    .where('untilDateTime', '>', localDateTime(from, space.timezone))
    .execute();
  // holidaysDuring returns the rows it was given, title included.
  const hit = holidaysDuring(holidays, from, until, space.timezone)[0] as
    | (typeof holidays)[number]
    | undefined;
  if (hit) {
    throw unprocessable(`The space is closed for a holiday (${hit.fromDateTime} - ${hit.untilDateTime})`, {
      rule: 'holiday',
      holiday: true,
      holidayTitle: hit.title,
      holidayFrom: hit.fromDateTime,
      holidayUntil: hit.untilDateTime,
    });
  }
  if (bool(space.bookingOpeningHours)) {
    const hours = await openingHoursOf(db, space.id);
    if (!withinOpeningHours(hours, from, until, space.timezone)) {
      throw unprocessable('Bookings must lie within the opening hours', {
        rule: 'outsideOpeningHours',
        outsideOpeningHours: true,
      });
    }
  }
}

/** Inside the lock: no other confirmed booking of the resource overlaps. */
async function checkOverlap(db: Db, resourceId: number, slot: Slot, except: number | null) {
  let query = db
    .selectFrom('bookings')
    .select(['id', 'member', 'fromDateTime', 'untilDateTime'])
    .where('resource', '=', resourceId)
    .where('state', '=', 'confirmed')
    .where('fromDateTime', '<', slot.until.toISOString())
    .where('untilDateTime', '>', slot.from.toISOString());
  if (except !== null) query = query.where('id', '!=', except);
  const clash = await query.executeTakeFirst();
  if (clash) {
    throw conflict('The resource is already booked at this time', {
      rule: 'overlappingBooking',
      overlappingBooking: clash.id,
      overlappingMember: clash.member,
      overlappingFrom: clash.fromDateTime,
      overlappingUntil: clash.untilDateTime,
    });
  }
}

/** Inside the lock: the member's booked minutes that day and week (space-local) stay within the limits. */
async function checkLimits(db: Db, space: SpaceRow, memberId: number, slot: Slot, except: number | null) {
  const zone = space.timezone;
  const minutes = (slot.until.getTime() - slot.from.getTime()) / 60_000;
  const day = localDate(slot.from, zone);
  const monday = addDays(day, 1 - wallTime(slot.from, zone).dayOfWeek);
  const limits: [number | null, string, string, string][] = [
    [space.bookingMaxMinutesPerMemberDay, day, addDays(day, 1), 'day'],
    [space.bookingMaxMinutesPerMemberWeek, monday, addDays(monday, 7), 'week'],
  ];
  for (const [limit, start, end, period] of limits) {
    if (limit === null) continue;
    let query = db
      .selectFrom('bookings as b')
      .innerJoin('resources as r', 'r.id', 'b.resource')
      .select(['b.fromDateTime', 'b.untilDateTime'])
      .where('b.member', '=', memberId)
      .where('r.space', '=', space.id)
      .where('b.state', '=', 'confirmed')
      .where('b.fromDateTime', '>=', zonedInstant(start, zone).toISOString())
      .where('b.fromDateTime', '<', zonedInstant(end, zone).toISOString());
    if (except !== null) query = query.where('b.id', '!=', except);
    const booked = (await query.execute()).reduce(
      (sum, b) => sum + (Date.parse(b.untilDateTime) - Date.parse(b.fromDateTime)) / 60_000,
      0,
    );
    if (booked + minutes > limit) {
      throw unprocessable(`This exceeds the limit of ${limit} booked minutes per member and ${period}`, {
        rule: period === 'day' ? 'dailyLimit' : 'weeklyLimit',
        [period === 'day' ? 'dailyLimit' : 'weeklyLimit']: limit,
        bookedMinutes: booked,
      });
    }
  }
}

async function bookableResource(db: Db, caller: Caller, id: number): Promise<ResourceRow> {
  let query = db.selectFrom('resources').selectAll().where('id', '=', id);
  if (!caller.superuser) query = query.where('account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('visibleForMembers', '=', 1);
  const row = await query.executeTakeFirst();
  if (!row)
    throw unprocessable(`Resource ${id} does not exist`, { rule: 'unknownResource', unknownResource: true });
  return row;
}

async function spaceOf(db: Db, resource: ResourceRow): Promise<SpaceRow> {
  return db.selectFrom('spaces').selectAll().where('id', '=', resource.space).executeTakeFirstOrThrow();
}

export interface BookingInput {
  resource: number;
  member?: number;
  fromDateTime: string;
  untilDateTime: string;
  notes?: string | null;
  /** Admins: check the booking window and limits as for the member's own booking. */
  applyMemberRules?: boolean;
}

export async function createBooking(
  ctx: HubContext,
  caller: Caller,
  input: BookingInput,
): Promise<BookingRow> {
  const privileged = isAdmin(caller);
  const memberId = input.member ?? caller.memberId;
  if (memberId !== caller.memberId && !privileged) throw forbidden('Members may book only for themselves');
  const resource = await bookableResource(ctx.db, caller, input.resource);
  const member = await ctx.db
    .selectFrom('members')
    .select(['id', 'state'])
    .where('id', '=', memberId)
    .where('account', '=', resource.account)
    .executeTakeFirst();
  if (!member)
    throw unprocessable(`Member ${memberId} does not exist in this account`, {
      rule: 'unknownMember',
      unknownMember: true,
    });
  if (!bool(resource.canBeBooked)) {
    throw unprocessable('This resource cannot be booked', { rule: 'notBookable', notBookable: true });
  }
  const space = await spaceOf(ctx.db, resource);
  const slot = { from: new Date(input.fromDateTime), until: new Date(input.untilDateTime) };
  const exempt = privileged && !input.applyMemberRules;
  await checkTimes(ctx.db, space, slot, exempt, ctx.clock.now());
  const created = await withResourceLock(ctx, resource.id, async (db) => {
    await checkOverlap(db, resource.id, slot, null);
    if (!exempt) await checkLimits(db, space, memberId, slot, null);
    const at = now();
    const row = await db
      .insertInto('bookings')
      .values({
        account: resource.account,
        resource: resource.id,
        member: memberId,
        fromDateTime: slot.from.toISOString(),
        untilDateTime: slot.until.toISOString(),
        state: 'confirmed',
        notes: input.notes ?? null,
        createdAt: at,
        updatedAt: at,
        updatedBy: caller.memberId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    // The booking fee is charged with the booking (once; chargeForBooking marks it charged).
    if (Number(resource.pricePerBooking) > 0) {
      await chargeForBooking(db, ctx, row.id);
    }
    const booking = await db
      .selectFrom('bookings')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    await emitBooking(db, 'booking_created', booking);
    return booking;
  });
  ctx.events.committed();
  return created;
}

export interface BookingChange {
  fromDateTime?: string;
  untilDateTime?: string;
  state?: 'confirmed' | 'cancelled';
  notes?: string | null;
  lockVersion: number;
}

/** Members cancel their own future bookings (not within the lock-in time); admins edit freely within the rules. */
export async function updateBooking(ctx: HubContext, caller: Caller, id: number, change: BookingChange) {
  const current = await findBooking(ctx.db, caller, id);
  const privileged = isAdmin(caller);
  const resource = await ctx.db
    .selectFrom('resources')
    .selectAll()
    .where('id', '=', current.resource)
    .executeTakeFirstOrThrow();
  const space = await spaceOf(ctx.db, resource);
  const at = ctx.clock.now();
  const fromDateTime = change.fromDateTime ?? current.fromDateTime;
  const untilDateTime = change.untilDateTime ?? current.untilDateTime;
  const state = change.state ?? current.state;
  const timesChanged = fromDateTime !== current.fromDateTime || untilDateTime !== current.untilDateTime;

  if (!privileged) {
    if (
      timesChanged ||
      state !== 'cancelled' ||
      (change.notes !== undefined && change.notes !== current.notes)
    ) {
      throw forbidden('Members may only cancel their bookings (state "cancelled")');
    }
    if (current.state !== 'cancelled') {
      const start = Date.parse(current.fromDateTime);
      if (start <= at.getTime())
        throw unprocessable('This booking has already started', {
          rule: 'bookingStarted',
          bookingStarted: true,
        });
      if (start - at.getTime() < space.bookingLockInHours * 3_600_000) {
        throw unprocessable(
          `Bookings cannot be cancelled later than ${space.bookingLockInHours} hours before they start`,
          { rule: 'lockedIn', lockedIn: true },
        );
      }
    }
  }

  const values = defined({
    fromDateTime,
    untilDateTime,
    state,
    notes: change.notes,
  });
  const needsChecks = state === 'confirmed' && (timesChanged || current.state !== 'confirmed');
  if (!needsChecks) {
    await ctx.events.transaction(async (trx) => {
      await updateLocked(trx, 'bookings', id, change.lockVersion, values, caller.memberId);
      await emitBooking(trx, 'booking_updated', await findBooking(trx, caller, id));
    });
    return findBooking(ctx.db, caller, id);
  }
  const slot = { from: new Date(fromDateTime), until: new Date(untilDateTime) };
  await checkTimes(ctx.db, space, slot, true, at);
  await withResourceLock(ctx, resource.id, async (db) => {
    await checkOverlap(db, resource.id, slot, id);
    await updateLocked(db, 'bookings', id, change.lockVersion, values, caller.memberId);
    await emitBooking(db, 'booking_updated', await findBooking(db, caller, id));
  });
  ctx.events.committed();
  return findBooking(ctx.db, caller, id);
}

export function emitBooking(
  db: Db,
  type: Extract<WebhookEventType, `booking_${string}`>,
  booking: BookingRow,
) {
  return emitEvent(db, {
    account: booking.account,
    type,
    details: async () => {
      return {
        booking: bookingRecord(booking),
        resource: await resourceEventRecordById(db, booking.resource),
        member: await memberEventRecord(db, booking.member),
      };
    },
  });
}
