import { useEffect, useState } from 'preact/hooks';
import type { UserMe } from '../api';
import { dateTime } from '../format';
import { type PresenceRecord, presenceApi } from './presence-api';
import { describe } from './sign-in';

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
        setMessage('You are checked out. See you soon!');
      } else {
        await presenceApi.checkIn();
        setMessage('You are checked in.');
      }
    } catch (err) {
      const reason = (err as { data?: { reason?: string } }).data?.reason;
      setMessage(
        reason === 'occupancyFull'
          ? 'The space is full: wait until someone checks out.'
          : reason === 'memberInactive'
            ? 'Your membership is not active.'
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
      <h1>Check in</h1>
      {presence && (
        <p>
          {presence.checkedIn === 1 ? '1 member is in' : `${presence.checkedIn} members are in`}
          {presence.occupancyLimit != null && ` (room for ${presence.occupancyLimit})`}.
        </p>
      )}
      {presence?.mine && <p>You are checked in since {dateTime(presence.mine.since)}.</p>}
      <button type="button" class="primary big" disabled={!presence || busy} onClick={press}>
        {presence?.mine ? 'Check out' : 'Check in'}
      </button>
      {full && <p>The space is full now.</p>}
      {message && <p role="status">{message}</p>}
      {show !== null && (
        <label class="check">
          <input
            type="checkbox"
            checked={show}
            onChange={(e) => toggleShow((e.target as HTMLInputElement).checked)}
          />{' '}
          Show my name to the other members while I am in
        </label>
      )}
      {presence && presence.people.length > 0 && (
        <section aria-labelledby="in-h">
          <h2 id="in-h">In the space</h2>
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
