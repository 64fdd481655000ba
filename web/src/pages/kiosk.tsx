import { useEffect, useState } from 'preact/hooks';
import type { UserMe } from '../api';
import { dateTime } from '../format';
import { type PresenceRecord, presenceApi } from './presence-api';
import { describe } from './sign-in';
import { t } from '../i18n/i18n';

/**
 * The kiosk (`/kiosk`): for spaces without an entrance reader, a member checks in and out with
 * one button, and chooses whether the others see them by name while in (docs/WEB.md).
 */
export function KioskPage({ me }: { me: UserMe }) {
  const [presence, setPresence] = useState<PresenceRecord | null>(null);
  const [show, setShow] = useState<boolean | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = () => presenceApi.presence().then(setPresence, (err) => setMessage(describe(err)));
  useEffect(() => {
    void load();
    presenceApi.showPresence(me.id).then(
      (s) => setShow(s.showPresence),
      () => {},
    );
    const t = setInterval(load, 30_000);
    return () => clearInterval(t);
  }, [me.id]);

  async function press() {
    if (!presence) return;
    setBusy(true);
    setMessage(null);
    try {
      if (presence.mine) {
        await presenceApi.checkOut(presence.mine.id);
        setMessage(t('kiosk.checkedOut'));
      } else {
        await presenceApi.checkIn();
        setMessage(t('kiosk.checkedIn'));
      }
    } catch (err) {
      const reason = (err as { data?: { reason?: string } }).data?.reason;
      setMessage(
        reason === 'occupancyFull'
          ? t('verdict.occupancyFull')
          : reason === 'memberInactive'
            ? t('verdict.memberInactive')
            : describe(err),
      );
    } finally {
      setBusy(false);
      await load();
    }
  }

  async function toggleShow(on: boolean) {
    setShow(on);
    try {
      setShow((await presenceApi.setShowPresence(me.id, on)).showPresence);
    } catch (err) {
      setShow(!on);
      setMessage(describe(err));
    }
  }

  const full =
    presence?.occupancyLimit != null && presence.checkedIn >= presence.occupancyLimit && !presence.mine;
  return (
    <main class="kiosk">
      <h1>{t('kiosk.title')}</h1>
      {presence && (
        <p>
          {t('kiosk.membersIn', { count: presence.checkedIn })}
          {presence.occupancyLimit != null && t('kiosk.roomFor', { limit: presence.occupancyLimit })}.
        </p>
      )}
      {presence?.mine && <p>{t('kiosk.checkedInSince', { since: dateTime(presence.mine.since) })}</p>}
      <button type="button" class="primary big" disabled={!presence || busy} onClick={press}>
        {presence?.mine ? t('kiosk.checkOut') : t('kiosk.checkIn')}
      </button>
      {full && <p>{t('kiosk.fullNow')}</p>}
      {message && <p role="status">{message}</p>}
      {show !== null && (
        <label class="check">
          <input
            type="checkbox"
            checked={show}
            onChange={(e) => toggleShow((e.target as HTMLInputElement).checked)}
          />{' '}
          {t('kiosk.showName')}
        </label>
      )}
      {presence && presence.people.length > 0 && (
        <section aria-labelledby="in-h">
          <h2 id="in-h">{t('kiosk.inSpace')}</h2>
          <ul>
            {presence.people.map((p) => (
              <li key={p.member}>{p.name}</li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}
