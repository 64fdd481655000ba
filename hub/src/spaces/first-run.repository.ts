import { countWhere, type Db } from '../db/crud.js';

/**
 * What the first-run checklist counts in one account: its spaces (time zone, how many opening
 * ranges), active packages and resources, bridges, and members invited to sign in.
 */
export async function setupFacts(db: Db, accountId: number) {
  const spaces = await db
    .selectFrom('spaces')
    .select((eb) => [
      'spaces.id',
      'spaces.name',
      'spaces.timezone',
      eb
        .selectFrom('opening_hours')
        .select(eb.fn.countAll().as('n'))
        .whereRef('opening_hours.space', '=', 'spaces.id')
        .as('openingHours'),
    ])
    .where('spaces.account', '=', accountId)
    .where('spaces.state', '=', 'active')
    .orderBy('spaces.id')
    .execute();
  const [packages, resources, pairedBridges, invitedMembers] = await Promise.all([
    countWhere(db, 'packages', { account: accountId, state: 'active' }),
    countWhere(db, 'resources', { account: accountId, state: 'active' }),
    countWhere(db, 'bridges', { account: accountId }),
    countWhere(db, 'member_invitations', { account: accountId }),
  ]);
  return {
    spaces: spaces.map((s) => ({
      id: s.id,
      name: s.name,
      timezone: s.timezone,
      timezoneSet: s.timezone !== 'UTC',
      openingHours: Number(s.openingHours ?? 0),
    })),
    packages,
    resources,
    pairedBridges,
    invitedMembers,
  };
}

/** Confirmed bookings of a resource that overlap a period (the calendar of the checklist). */
export { busyTimes } from './bookings.repository.js';

/** The space's time zone (the resource's space). */
export { spaceTimeZone as timezoneOfSpace } from './spaces.repository.js';
