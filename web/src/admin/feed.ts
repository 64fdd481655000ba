import type { LiveLog } from '../api';
import { t, tOr } from '../i18n/i18n';

/** "unknown card", "training missing": a deny reason in words (`admin.feed.reason.*`). */
export const reasonWords = (reason: string | null) =>
  reason ? tOr(`admin.feed.reason.${reason}`, reason.replace(/([A-Z])/g, ' $1').toLowerCase()) : '';

const who = (log: LiveLog) => (log.member ? `${log.member.firstName} ${log.member.lastName}`.trim() : null);

/** One feed line: what happened, to whom, why. */
export function logText(log: LiveLog): string {
  const person = who(log);
  const card = log.card ? t('admin.feed.card', { token: log.card.token }) : '';
  const by = person ? t('admin.feed.by', { person }) : '';
  switch (log.type) {
    case 'allowed':
      return `${t('admin.feed.allowed', { person: person ?? t('admin.feed.someone') })}${card}`;
    case 'denied':
      return `${t('admin.feed.denied', { reason: reasonWords(log.reason) })}${person ? `, ${person}` : ''}${card}`;
    case 'keyAssigned':
      return `${t('admin.feed.keyAssigned', { person: person ?? t('admin.dashboard.aMember') })}${card}`;
    case 'pairing':
      return `${t('admin.feed.paired')}${by}`;
    case 'reboot':
      return t('admin.feed.restarted');
    case 'resourceDisabled':
      return `${t('admin.feed.locked')}${by}`;
    case 'resourceEnabled':
      return `${t('admin.feed.unlocked')}${by}`;
    default:
      return `${tOr(`log.type.${log.type}`, log.type.replace(/([A-Z])/g, ' $1').toLowerCase())}${person ? `: ${person}` : ''}`;
  }
}
