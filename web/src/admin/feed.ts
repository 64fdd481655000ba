import type { LiveLog } from '../api';

const reasons: Record<string, string> = {
  unknownKey: 'unknown card',
  keyInactive: 'card disabled',
  memberInactive: 'member inactive',
  noPackage: 'no package allows it',
  noPermission: 'training missing',
  openingHours: 'outside opening hours',
  holiday: 'holiday',
  booking: 'booked by someone else',
  requiresBooking: 'needs a booking',
  timeTable: 'package time rules',
  tooManyAttempts: 'too many attempts',
  wrongCode: 'wrong code',
  staleCode: 'old sticker',
  inactive: 'resource locked',
  occupancyFull: 'space full',
  interlock: 'interlock open',
};

/** "unknown card", "training missing": a deny reason in words. */
export const reasonWords = (reason: string | null) =>
  reason ? (reasons[reason] ?? reason.replace(/([A-Z])/g, ' $1').toLowerCase()) : '';

const who = (log: LiveLog) => (log.member ? `${log.member.firstName} ${log.member.lastName}`.trim() : null);

/** One feed line: what happened, to whom, why. */
export function logText(log: LiveLog): string {
  const person = who(log);
  const card = log.card ? ` (card ${log.card.token})` : '';
  switch (log.type) {
    case 'allowed':
      return `Allowed: ${person ?? 'someone'}${card}`;
    case 'denied':
      return `Denied: ${reasonWords(log.reason)}${person ? `, ${person}` : ''}${card}`;
    case 'keyAssigned':
      return `Key assigned to ${person ?? 'a member'}${card}`;
    case 'pairing':
      return `Bridge paired${person ? ` by ${person}` : ''}`;
    case 'reboot':
      return 'Bridge restarted';
    case 'resourceDisabled':
      return `Locked${person ? ` by ${person}` : ''}`;
    case 'resourceEnabled':
      return `Unlocked${person ? ` by ${person}` : ''}`;
    default:
      return `${log.type.replace(/([A-Z])/g, ' $1').toLowerCase()}${person ? `: ${person}` : ''}`;
  }
}
