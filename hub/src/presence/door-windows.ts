import type { Db } from '../db/crud.js';
import { executorReads } from '../db/fast-reads.js';
import type { HubContext } from '../context.js';
import { type PeriodicCheck, periodicCheck } from '../periodic.js';
import { holidaySpansAfter, openingRanges } from '../spaces/access.repository.js';
import {
  closingTime,
  type HolidaySpan,
  holidayAt,
  nextHolidayStart,
  type OpeningRange,
} from '../spaces/schedule.js';
import { addDays, localDate, localDateTime, zonedInstant } from '../kernel/zoned-time.js';
import { bumpConfigVersion } from '../resources/bridges.repository.js';
import { doorLock, doorRow, entriesSince, heldDoors, putDoorLock, spaceOf } from './presence.repository.js';

export type HeldMode = 'openingHours' | 'firstIn';

/** A door held unlocked: why, and until when. */
export interface DoorWindow {
  unlockMode: HeldMode;
  until: Date;
}

/** The next local midnight after `at` in the zone. */
export function nextMidnight(at: Date, zone: string): Date {
  return zonedInstant(addDays(localDate(at, zone), 1), zone);
}

/**
 * The pure rule of a door's unlock window at `at` (docs/DECISIONS.md, "Presence and door modes"):
 * - `openingHours`: while the space is open by its opening hours, until closing; a space
 *   without opening hours has no window (it would never lock);
 * - `firstIn`: once a member has entered today (`enteredToday`), until closing (local midnight
 *   when the space has no opening hours);
 * - never during a holiday (the window ends when one starts), nor before an admin's "lock now"
 *   (`lockedUntil`) has passed.
 */
export function windowAt(input: {
  mode: string;
  zone: string;
  hours: OpeningRange[];
  holidays: HolidaySpan[];
  enteredToday: boolean;
  lockedUntil: Date | null;
  at: Date;
}): DoorWindow | null {
  const { mode, zone, hours, holidays, at } = input;
  if (mode !== 'openingHours' && mode !== 'firstIn') return null;
  if (input.lockedUntil && input.lockedUntil.getTime() > at.getTime()) return null;
  if (holidayAt(holidays, at, zone)) return null;
  let until: Date | null;
  if (hours.length === 0) until = mode === 'firstIn' ? nextMidnight(at, zone) : null;
  else until = closingTime(hours, at, zone);
  if (!until) return null;
  if (mode === 'firstIn' && !input.enteredToday) return null;
  const holiday = nextHolidayStart(holidays, at, zone);
  if (holiday && holiday.getTime() < until.getTime()) until = holiday;
  return { unlockMode: mode, until };
}

type Door = { id: number; account: number; space: number; controlType: string; unlockMode: string };

/** The window of a door now, read from storage; null for other resources and tap-only doors. */
export async function doorWindow(db: Db, door: Door, at: Date): Promise<DoorWindow | null> {
  if (door.controlType !== 'door' || door.unlockMode === 'normal') return null;
  const space = await spaceOf(db, door.space);
  if (!space) return null;
  const zone = validZone(space.timezone);
  const reads = executorReads(db);
  const hours = await openingRanges(reads, door.space);
  const holidays = await holidaySpansAfter(reads, door.space, localDateTime(at, zone));
  const lock = await doorLock(db, door.id);
  const midnight = zonedInstant(localDate(at, zone), zone).toISOString();
  const enteredToday = door.unlockMode === 'firstIn' && (await entriesSince(db, door.id, midnight)) > 0;
  return windowAt({
    mode: door.unlockMode,
    zone,
    hours,
    holidays,
    enteredToday,
    lockedUntil: lock ? new Date(lock.lockedUntil) : null,
    at,
  });
}

export async function doorWindowById(db: Db, resource: number, at: Date): Promise<DoorWindow | null> {
  const door = await doorRow(db, resource);
  return door ? doorWindow(db, door, at) : null;
}

export function validZone(zone: string | null | undefined): string {
  if (!zone) return 'UTC';
  try {
    localDate(new Date(0), zone);
    return zone;
  } catch {
    return 'UTC';
  }
}

/** A new config version (HTTP bridges fetch a newer one only) published to the door's agent. */
async function republish(ctx: HubContext, door: number): Promise<void> {
  await bumpConfigVersion(ctx.db, door);
  await ctx.bridges.publishConfig(door);
}

/**
 * Keeps held doors' agents told: every check (each `intervalMs`) works out each held door's
 * window and republishes the door's config when it changed (the space opened, a holiday began,
 * the opening hours were edited). The agent relocks at the window's end by itself, so a hub
 * that is away late costs nothing.
 */
export function watchDoorWindows(ctx: HubContext, intervalMs = 30_000): PeriodicCheck & { reset(): void } {
  const last = new Map<number, string>();
  async function checkNow(): Promise<void> {
    const at = ctx.clock.now();
    const seen = new Set<number>();
    for (const door of await heldDoors(ctx.db)) {
      seen.add(door.id);
      const window = await doorWindow(ctx.db, door, at);
      const key = window ? `${window.unlockMode}|${window.until.toISOString()}` : 'none';
      const before = last.get(door.id);
      last.set(door.id, key);
      if (before !== key) await republish(ctx, door.id);
    }
    for (const id of [...last.keys()]) if (!seen.has(id)) last.delete(id);
  }
  const check = periodicCheck(checkNow, intervalMs, ctx.logger, 'checking door unlock windows failed');
  return { ...check, reset: () => last.clear() };
}

/**
 * An admin's "lock now": the door's window is off until it would have ended (the next window
 * opens as usual). Answers when the door stays locked until (null: it was not held open).
 */
export async function lockDoorNow(ctx: HubContext, door: Door, by: number | null): Promise<Date | null> {
  const at = ctx.clock.now();
  const window = await doorWindow(ctx.db, door, at);
  if (!window) return null;
  await putDoorLock(ctx.db, {
    resource: door.id,
    account: door.account,
    lockedUntil: window.until.toISOString(),
    createdAt: at.toISOString(),
    createdBy: by,
  });
  await republish(ctx, door.id);
  return window.until;
}
