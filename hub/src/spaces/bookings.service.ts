import type { BookingRecord } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import type { Db } from '../db/crud.js';
import { insertRow } from '../db/collection-rows.js';
import { bool, defined } from '../db/crud.js';
import { flags, inAccount, recordEvents, recordOf, requiredRow } from '../db/records.js';
import type { ResourceRow } from '../access/policy.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { conflict, forbidden, unprocessable } from '../errors.js';
import { memberEventRecord } from '../identity/members.js';
import { resourceEventRecordById } from '../resources/resources.js';
import { holidaysDuring, withinOpeningHours } from './schedule.js';
import { accountOrOwn } from '../db/records.js';
import {
  bookableResourceRow,
  type BookingRow,
  lockResourceRow,
  memberBookingsStarting,
  overlappingBooking,
} from './bookings.repository.js';
import { holidaysEndingAfter, openingHoursOf, type SpaceRow, spaceById } from './spaces.repository.js';
import { addDays, localDate, localDateTime, wallTime, zonedInstant } from '../kernel/zoned-time.js';

export function bookingRecord(row: BookingRow): BookingRecord {
  return {
    ...recordOf(row, [
      'id',
      'account',
      'resource',
      'member',
      'fromDateTime',
      'untilDateTime',
      'state',
      'notes',
    ]),
    ...flags(row, ['charged']),
  };
}

/** Bookings the caller sees: admins their account's, members their own (DESIGN 4). */
export const visibleBookings = (db: Db, caller: Caller) => accountOrOwn(db, 'bookings', caller);

export { bookingFilters } from './bookings.repository.js';

/**
 * Inside a booking write's transaction: no other booking write for this resource can interleave
 * between its overlap check and its write. PostgreSQL: the resource row is locked (SELECT ... FOR
 * UPDATE). SQLite: the transaction holds the one connection, which no other write can use meanwhile.
 */
async function lockResource(trx: Db, ctx: HubContext, resourceId: number) {
  if (ctx.storage.dialect === 'postgres') {
    await lockResourceRow(trx, resourceId);
  }
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
  const holidays = await holidaysEndingAfter(db, space.id, localDateTime(from, space.timezone));
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
  const range = { from: slot.from.toISOString(), until: slot.until.toISOString() };
  const clash = await overlappingBooking(db, resourceId, range, except);
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
    const range = {
      from: zonedInstant(start, zone).toISOString(),
      until: zonedInstant(end, zone).toISOString(),
    };
    const booked = (await memberBookingsStarting(db, memberId, space.id, range, except)).reduce(
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
  const row = await bookableResourceRow(db, caller, id);
  if (!row)
    throw unprocessable(`Resource ${id} does not exist`, { rule: 'unknownResource', unknownResource: true });
  return row;
}

async function spaceOf(db: Db, resource: ResourceRow): Promise<SpaceRow> {
  return spaceById(db, resource.space);
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

/** Writes a booking within the rules, in the caller's transaction, with its fee and its event. */
export async function createBooking(
  trx: Db,
  ctx: HubContext,
  caller: Caller,
  input: BookingInput,
  at: string,
): Promise<BookingRow> {
  const privileged = isAdmin(caller);
  const memberId = input.member ?? caller.memberId;
  if (memberId !== caller.memberId && !privileged) throw forbidden('Members may book only for themselves');
  const resource = await bookableResource(trx, caller, input.resource);
  if (!(await inAccount(trx, 'members', memberId, resource.account)))
    throw unprocessable(`Member ${memberId} does not exist in this account`, {
      rule: 'unknownMember',
      unknownMember: true,
    });
  if (!bool(resource.canBeBooked)) {
    throw unprocessable('This resource cannot be booked', { rule: 'notBookable', notBookable: true });
  }
  const space = await spaceOf(trx, resource);
  const slot = { from: new Date(input.fromDateTime), until: new Date(input.untilDateTime) };
  const exempt = privileged && !input.applyMemberRules;
  await checkTimes(trx, space, slot, exempt, new Date(at));
  await lockResource(trx, ctx, resource.id);
  await checkOverlap(trx, resource.id, slot, null);
  if (!exempt) await checkLimits(trx, space, memberId, slot, null);
  const row = await insertRow(
    trx,
    'bookings',
    {
      account: resource.account,
      resource: resource.id,
      member: memberId,
      fromDateTime: slot.from.toISOString(),
      untilDateTime: slot.until.toISOString(),
      state: 'confirmed',
      notes: input.notes ?? null,
    },
    { at, by: caller.memberId },
  );
  // The booking fee is charged with the booking (once; the billing port marks it charged).
  if (Number(resource.pricePerBooking) > 0) await ctx.charges.chargeBooking(trx, row.id);
  const booking = await requiredRow(trx, 'bookings', row.id);
  await emitBooking(trx, 'booking_created', booking);
  return booking;
}

export interface BookingChange {
  fromDateTime?: string;
  untilDateTime?: string;
  state?: 'confirmed' | 'cancelled';
  notes?: string | null;
  lockVersion: number;
}

/**
 * The columns a booking change writes, in the write's transaction: members cancel their own
 * future bookings (not within the lock-in time); admins edit freely within the rules.
 */
export async function bookingChanges(
  trx: Db,
  ctx: HubContext,
  caller: Caller,
  current: BookingRow,
  change: BookingChange,
) {
  const privileged = isAdmin(caller);
  const resource = await requiredRow(trx, 'resources', current.resource);
  const space = await spaceOf(trx, resource);
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

  const values = defined({ fromDateTime, untilDateTime, state, notes: change.notes });
  if (state === 'confirmed' && (timesChanged || current.state !== 'confirmed')) {
    const slot = { from: new Date(fromDateTime), until: new Date(untilDateTime) };
    await checkTimes(trx, space, slot, true, at);
    await lockResource(trx, ctx, resource.id);
    await checkOverlap(trx, resource.id, slot, current.id);
  }
  return values;
}

export const emitBooking = recordEvents<BookingRow, 'booking'>(async (db, booking) => ({
  booking: bookingRecord(booking),
  resource: await resourceEventRecordById(db, booking.resource),
  member: await memberEventRecord(db, booking.member),
}));
