import { z } from 'zod';
import { Id, Stamps, Timestamp } from './common.js';

/** How a check-in began or ended: a card tap at an entrance, the kiosk button, closing time, an admin. */
export const CheckInMethod = z.enum(['tap', 'kiosk', 'closing', 'admin']);
export type CheckInMethod = z.infer<typeof CheckInMethod>;

/** A member's stay in a space: checked in, and (once out) checked out (docs/DECISIONS.md, "Presence"). */
export const CheckInRecord = z.object({
  id: Id,
  account: Id,
  space: Id,
  member: Id,
  state: z.enum(['in', 'out']),
  checkedInAt: Timestamp,
  checkedOutAt: Timestamp.nullable(),
  checkInMethod: CheckInMethod,
  checkOutMethod: CheckInMethod.nullable(),
  /** The entrance tapped to check in (null: the kiosk). */
  checkInResource: Id.nullable(),
  /** The entrance tapped to check out (null: kiosk, closing time or an admin). */
  checkOutResource: Id.nullable(),
  ...Stamps,
});
export type CheckInRecord = z.infer<typeof CheckInRecord>;

/** POST /check-ins: the caller checks in (the kiosk page); `space` defaults to the caller's own. */
export const CheckInCreate = z.strictObject({
  space: Id.optional().describe('The space to check in to; the caller’s own space when left out'),
});

/** GET /presence: how many are in, and by name those who chose to be shown. */
export const PresenceRecord = z.object({
  space: Id,
  checkedIn: z.number().int().describe('How many members are checked in now'),
  occupancyLimit: z.number().int().nullable(),
  /** Checked-in members who chose to be shown (`showPresence`), longest in first. */
  people: z.array(z.object({ member: Id, name: z.string(), since: Timestamp })),
  /** The caller's own open check-in, if any. */
  mine: z.object({ id: Id, since: Timestamp }).nullable(),
});
export type PresenceRecord = z.infer<typeof PresenceRecord>;

/** GET/PUT /members/{id}/presence-settings. */
export const PresenceSettingsRecord = z.object({
  showPresence: z
    .boolean()
    .describe('Show the member by name to the space’s members and on the dashboard while checked in'),
});
export const PresenceSettingsUpdate = z.object({ showPresence: z.boolean() });

/** GET /check-ins filters. */
export const CheckInQuery = z.object({
  state: z.enum(['in', 'out']).optional().describe('in: still checked in; out: checked out'),
  space: Id.optional(),
  member: Id.optional().describe('Admins: one member’s stays (members always see their own only)'),
  from: Timestamp.optional().describe('Checked in at or after this time'),
  until: Timestamp.optional().describe('Checked in before this time'),
  limit: z.number().int().min(1).max(1000).default(50).describe('Records per page (1-1000)'),
  offset: z.number().int().min(0).default(0).describe('Records to skip'),
});

export const PresenceQuery = z.object({
  space: Id.optional().describe('The space; the caller’s own when left out'),
});

/** POST /resources/{id}/lock-now: until when the door stays locked (null: it was not held open). */
export const DoorLockRecord = z.object({
  lockedUntil: Timestamp.nullable(),
});
