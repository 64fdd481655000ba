import { useEffect, useState } from 'preact/hooks';
import { dateTime } from '../format';
import { type PresenceRecord, presenceApi } from '../pages/presence-api';
import { rich, slot, t } from '../i18n/i18n';

/** The dashboard's "Who is in": how many are checked in, and by name those who chose to be shown. */
export function PresencePanel() {
  const [presence, setPresence] = useState<PresenceRecord | null>(null);
  useEffect(() => {
    const load = () => presenceApi.presence().then(setPresence, () => {});
    void load();
    const t = setInterval(load, 30_000);
    return () => clearInterval(t);
  }, []);
  if (!presence) return null;
  const hidden = presence.checkedIn - presence.people.length;
  return (
    <section aria-labelledby="presence-h">
      <h2 id="presence-h">{t('admin.presence_panel.whoIsIn')}</h2>
      <p>
        <strong>{presence.checkedIn}</strong> {t('admin.presence_panel.checkedIn')}
        {presence.occupancyLimit != null &&
          t('admin.presence_panel.ofAllowed', { limit: presence.occupancyLimit })}
        {hidden > 0 && presence.people.length > 0 && t('admin.presence_panel.notShown', { count: hidden })}.
      </p>
      {presence.people.length > 0 && (
        <ul>
          {presence.people.map((p) => (
            <li key={p.member}>
              {p.name}{' '}
              <time dateTime={p.since}>{t('admin.presence_panel.since', { since: dateTime(p.since) })}</time>
            </li>
          ))}
        </ul>
      )}
      <p class="small">
        {rich(t('admin.presence_panel.howToCheckIn', { kiosk: slot('kiosk') }), {
          kiosk: <a href="/kiosk">{t('admin.presence_panel.kioskPage')}</a>,
        })}
      </p>
    </section>
  );
}
