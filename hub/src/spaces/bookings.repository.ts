import { type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import { type Db, qualified, updateWhere } from '../db/crud.js';
import type { BookingsTable, Database } from '../db/schema.js';
import { type Caller, isAdmin } from '../kernel/caller.js';

export type BookingRow = Selectable<BookingsTable>;

/** The list's time range (`from`/`until` are aliases) and space filters. */
export function bookingFilters(
  base: SelectQueryBuilder<Database, 'bookings', object>,
  query: { fromDateTime?: string; untilDateTime?: string; from?: string; until?: string; space?: number },
) {
  const from = query.fromDateTime ?? query.from;
  const until = query.untilDateTime ?? query.until;
  const space = query.space;
  let q = base;
  if (from) q = q.where('bookings.untilDateTime', '>', from);
  if (until) q = q.where('bookings.fromDateTime', '<', until);
  if (space) {
    q = q.where('bookings.resource', 'in', (eb) =>
      eb.selectFrom('resources').select('resources.id').where('resources.space', '=', space),
    );
  }
  return q;
}

/** PostgreSQL: locks the resource row until the transaction ends (SELECT ... FOR UPDATE). */
export async function lockResourceRow(trx: Db, resourceId: number): Promise<void> {
  await sql`select id from resources where id = ${resourceId} for update`.execute(trx);
}

/** Confirmed bookings (as `b`), other than `except` (the one being changed) when given. */
function confirmedBookings(db: Db, except: number | null = null) {
  const query = db.selectFrom('bookings as b').where('b.state', '=', 'confirmed');
  return except === null ? query : query.where('b.id', '!=', except);
}

/** Confirmed bookings of the resource overlapping [from, until), other than `except`. */
function overlapping(db: Db, resourceId: number, slot: Slot, except: number | null = null) {
  return confirmedBookings(db, except)
    .where('b.resource', '=', resourceId)
    .where('b.fromDateTime', '<', slot.until)
    .where('b.untilDateTime', '>', slot.from);
}

interface Slot {
  from: string;
  until: string;
}

/** A confirmed booking of the resource overlapping [from, until), other than `except`. */
export function overlappingBooking(db: Db, resourceId: number, slot: Slot, except: number | null) {
  return overlapping(db, resourceId, slot, except)
    .select(qualified('b', ['id', 'member', 'fromDateTime', 'untilDateTime']))
    .executeTakeFirst();
}

/** Confirmed bookings of a resource that overlap [from, until), oldest first: when and whose. */
export function busyTimes(db: Db, resourceId: number, from: string, until: string) {
  return overlapping(db, resourceId, { from, until })
    .select(qualified('b', ['fromDateTime', 'untilDateTime', 'member']))
    .orderBy('b.fromDateTime')
    .orderBy('b.id')
    .limit(1000)
    .execute();
}

/** The member's confirmed bookings in the space starting in [from, until), other than `except`. */
export function memberBookingsStarting(
  db: Db,
  memberId: number,
  spaceId: number,
  range: Slot,
  except: number | null,
) {
  return confirmedBookings(db, except)
    .innerJoin('resources as r', 'r.id', 'b.resource')
    .select(['b.fromDateTime', 'b.untilDateTime'])
    .where('b.member', '=', memberId)
    .where('r.space', '=', spaceId)
    .where('b.fromDateTime', '>=', range.from)
    .where('b.fromDateTime', '<', range.until)
    .execute();
}

/**
 * A resource the caller may book: of their account (any for superusers), visible to members
 * unless the caller is an admin (the `resources` table is the resources area's).
 */
export function bookableResourceRow(db: Db, caller: Caller, id: number) {
  let query = db.selectFrom('resources').selectAll().where('id', '=', id);
  if (!caller.superuser) query = query.where('account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('visibleForMembers', '=', 1);
  return query.executeTakeFirst();
}

/** The calendar feed's bookings: confirmed, of the space, ending after `since`, by start. */
export function calendarBookings(db: Db, spaceId: number, since: string) {
  return confirmedBookings(db)
    .innerJoin('resources as r', 'r.id', 'b.resource')
    .innerJoin('members as m', 'm.id', 'b.member')
    .select([
      ...qualified('b', ['id', 'fromDateTime', 'untilDateTime', 'updatedAt']),
      'r.name as resourceName',
      ...qualified('m', ['firstName', 'lastName']),
    ])
    .where('r.space', '=', spaceId)
    .where('b.untilDateTime', '>', since)
    .orderBy('b.fromDateTime')
    .limit(5000)
    .execute();
}

/** Marks a booking charged (bookings). */
export async function markBookingCharged(db: Db, bookingId: number): Promise<void> {
  await updateWhere(db, 'bookings', { id: bookingId }, { charged: 1 });
}
