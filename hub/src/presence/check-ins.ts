import type { CheckInRecord, PresenceRecord } from '@makerspace/shared';
import type { DoorTap, DoorTapOutcome, HubContext, PresencePort } from '../context.js';
import type { Db } from '../db/crud.js';
import { emitEvent } from '../db/outbox.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { executorReads } from '../db/fast-reads.js';
import { localDate, zonedInstant } from '../kernel/zoned-time.js';
import { type PeriodicCheck, periodicCheck } from '../periodic.js';
import { openingRanges } from '../spaces/access.repository.js';
import { closingTime, nextOpening, type OpeningRange } from '../spaces/schedule.js';
import { doorWindow, nextMidnight, validZone } from './door-windows.js';
import {
  type CheckInFilter,
  type CheckInRow,
  checkInById,
  checkInPage,
  closeCheckIn,
  entriesSince,
  insertCheckIn,
  memberStateOf,
  occupancy,
  openCheckIn,
  openCheckIns,
  presentMembers,
  spaceOf,
} from './presence.repository.js';

export function checkInRecord(row: CheckInRow): CheckInRecord {
  return {
    id: row.id,
    account: row.account,
    space: row.space,
    member: row.member,
    state: row.state === 'in' ? 'in' : 'out',
    checkedInAt: row.checkedInAt,
    checkedOutAt: row.checkedOutAt,
    checkInMethod: row.checkInMethod as CheckInRecord['checkInMethod'],
    checkOutMethod: row.checkOutMethod as CheckInRecord['checkOutMethod'],
    checkInResource: row.checkInResource,
    checkOutResource: row.checkOutResource,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

const emitCheckIn = (trx: Db, row: CheckInRow, change: 'created' | 'updated') =>
  emitEvent(trx, {
    account: row.account,
    type: change === 'created' ? 'checkIn_created' : 'checkIn_updated',
    details: { checkIn: checkInRecord(row) },
  });

/**
 * The presence port (context.ts): an allowed tap at an entrance checks the member in, or out
 * when they are in already (the door opens either way); a firstIn door's first entry of the day
 * opens its unlock window.
 */
export const presencePort: PresencePort = {
  async doorTapped(trx: Db, tap: DoorTap): Promise<DoorTapOutcome> {
    const at = tap.at.toISOString();
    let checkIn: DoorTapOutcome['checkIn'] = null;
    if (tap.entrance) {
      const open = await openCheckIn(trx, tap.space, tap.member);
      if (open) {
        const closed = await closeCheckIn(trx, open.id, {
          at,
          method: 'tap',
          resource: tap.resource,
          by: tap.member,
          stamp: at,
        });
        if (closed) {
          await emitCheckIn(trx, closed, 'updated');
          checkIn = 'out';
        }
      } else {
        const row = await insertCheckIn(trx, {
          account: tap.account,
          space: tap.space,
          member: tap.member,
          at,
          method: 'tap',
          resource: tap.resource,
          by: tap.member,
        });
        await emitCheckIn(trx, row, 'created');
        checkIn = 'in';
      }
    }
    let windowOpened = false;
    if (tap.unlockMode === 'firstIn') {
      const space = await spaceOf(trx, tap.space);
      const zone = validZone(space?.timezone);
      const midnight = zonedInstant(localDate(tap.at, zone), zone).toISOString();
      // The tap's own log is written already: one entry today means this one was the first.
      windowOpened = (await entriesSince(trx, tap.resource, midnight)) === 1;
    }
    return { checkIn, windowOpened };
  },
  async doorWindow(db, door, at) {
    const window = await doorWindow(db, door, at);
    return window ? { unlockMode: window.unlockMode, until: window.until } : null;
  },
};

async function spaceInAccount(ctx: HubContext, caller: Caller, spaceId: number) {
  const space = await spaceOf(ctx.db, spaceId);
  if (!space || (!caller.superuser && space.account !== caller.accountId)) throw notFound('Space');
  // Members see their own space only (spaces are visible so); admins every one of the account.
  if (!isAdmin(caller) && space.id !== caller.spaceId) throw notFound('Space');
  return space;
}

/** The kiosk's "check in": the caller checks in to the space (their own by default). */
export async function checkInCaller(
  ctx: HubContext,
  caller: Caller,
  spaceId?: number,
): Promise<CheckInRecord> {
  const space = await spaceInAccount(ctx, caller, spaceId ?? caller.spaceId);
  const state = await memberStateOf(ctx.db, caller.memberId);
  if (state !== 'active') throw forbidden('Your membership is not active', { reason: 'memberInactive' });
  const at = ctx.clock.now().toISOString();
  const row = await ctx.events.transaction(async (trx) => {
    const open = await openCheckIn(trx, space.id, caller.memberId);
    if (open) throw conflict('You are checked in already', { alreadyCheckedIn: open.id });
    if (space.occupancyLimit !== null && !isAdmin(caller)) {
      const { count } = await occupancy(executorReads(trx), space.id, caller.memberId);
      if (count >= space.occupancyLimit) throw forbidden('The space is full', { reason: 'occupancyFull' });
    }
    const inserted = await insertCheckIn(trx, {
      account: space.account,
      space: space.id,
      member: caller.memberId,
      at,
      method: 'kiosk',
      resource: null,
      by: caller.memberId,
    });
    await emitCheckIn(trx, inserted, 'created');
    return inserted;
  });
  return checkInRecord(row);
}

async function visibleCheckIn(ctx: HubContext, caller: Caller, id: number): Promise<CheckInRow> {
  const row = await checkInById(ctx.db, id);
  if (!row) throw notFound('Check-in');
  const sees = isAdmin(caller)
    ? caller.superuser || row.account === caller.accountId
    : row.account === caller.accountId && row.member === caller.memberId;
  if (!sees) throw notFound('Check-in');
  return row;
}

/** Checks a stay out: the member their own (kiosk), an admin anyone's of the account. */
export async function checkOut(ctx: HubContext, caller: Caller, id: number): Promise<CheckInRecord> {
  const row = await visibleCheckIn(ctx, caller, id);
  if (row.state !== 'in') throw conflict('Checked out already', { alreadyCheckedOut: true });
  const at = ctx.clock.now().toISOString();
  const closed = await ctx.events.transaction(async (trx) => {
    const done = await closeCheckIn(trx, row.id, {
      at,
      method: row.member === caller.memberId ? 'kiosk' : 'admin',
      resource: null,
      by: caller.memberId,
      stamp: at,
    });
    if (!done) throw conflict('Checked out already', { alreadyCheckedOut: true });
    await emitCheckIn(trx, done, 'updated');
    return done;
  });
  return checkInRecord(closed);
}

export async function getCheckIn(ctx: HubContext, caller: Caller, id: number): Promise<CheckInRecord> {
  return checkInRecord(await visibleCheckIn(ctx, caller, id));
}

/** Stays the caller sees: admins the account's (any member), members their own. */
export async function listCheckIns(
  ctx: HubContext,
  caller: Caller,
  query: Omit<CheckInFilter, 'account'> & { limit: number; offset: number },
) {
  const { limit, offset, ...filter } = query;
  const f: CheckInFilter = { ...filter, account: caller.accountId };
  if (!isAdmin(caller)) {
    // A member's own stays only: another member's id selects nothing.
    if (f.member !== undefined && f.member !== caller.memberId) f.member = -1;
    else f.member = caller.memberId;
  }
  const page = await checkInPage(ctx.db, f, limit, offset);
  return { records: page.rows.map(checkInRecord), page: { total: page.total, limit, offset } };
}

/** How many are in the space, who of them chose to be shown, and the caller's own stay. */
export async function presenceOf(ctx: HubContext, caller: Caller, spaceId?: number): Promise<PresenceRecord> {
  const space = await spaceInAccount(ctx, caller, spaceId ?? caller.spaceId);
  const rows = await presentMembers(ctx.db, space.id);
  const mine = rows.find((r) => r.member === caller.memberId);
  return {
    space: space.id,
    checkedIn: rows.length,
    occupancyLimit: space.occupancyLimit,
    people: rows
      .filter((r) => r.showPresence === 1)
      .map((r) => ({
        member: r.member,
        name: `${r.firstName} ${r.lastName ?? ''}`.trim(),
        since: r.checkedInAt,
      })),
    mine: mine ? { id: mine.id, since: mine.checkedInAt } : null,
  };
}

/**
 * When a stay that began at `checkedInAt` ends by itself: at the closing time of the opening
 * range it began in (or of the next one, when it began while closed); at local midnight when
 * the space has no opening hours.
 */
export function closingCheckOutAt(hours: OpeningRange[], checkedInAt: Date, zone: string): Date {
  if (hours.length === 0) return nextMidnight(checkedInAt, zone);
  const closes = closingTime(hours, checkedInAt, zone);
  if (closes) return closes;
  const opens = nextOpening(hours, checkedInAt, zone);
  return (opens && closingTime(hours, opens, zone)) ?? nextMidnight(checkedInAt, zone);
}

/** Checks out everyone whose space has closed since they checked in (at the closing time). */
export async function checkOutAtClosing(ctx: HubContext): Promise<number> {
  const now = ctx.clock.now();
  const hoursBySpace = new Map<number, OpeningRange[]>();
  let ended = 0;
  for (const row of await openCheckIns(ctx.db)) {
    let hours = hoursBySpace.get(row.space);
    if (!hours) {
      hours = await openingRanges(executorReads(ctx.db), row.space);
      hoursBySpace.set(row.space, hours);
    }
    const due = closingCheckOutAt(hours, new Date(row.checkedInAt), validZone(row.timezone));
    if (due.getTime() > now.getTime()) continue;
    const done = await ctx.events.transaction(async (trx) => {
      const closed = await closeCheckIn(trx, row.id, {
        at: due.toISOString(),
        method: 'closing',
        resource: null,
        by: null,
        stamp: now.toISOString(),
      });
      if (closed) await emitCheckIn(trx, closed, 'updated');
      return closed;
    });
    if (done) ended++;
  }
  return ended;
}

/** The closing-time check-outs, once a minute (a periodic job of the hub). */
export function watchClosingTimes(ctx: HubContext, intervalMs = 60_000): PeriodicCheck {
  return periodicCheck(
    async () => {
      await checkOutAtClosing(ctx);
    },
    intervalMs,
    ctx.logger,
    'checking out at closing time failed',
  );
}
