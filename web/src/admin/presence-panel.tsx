import { useEffect, useState } from 'preact/hooks';
import { dateTime } from '../format';
import { type PresenceRecord, presenceApi } from '../pages/presence-api';

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
      <h2 id="presence-h">Who is in</h2>
      <p>
        <strong>{presence.checkedIn}</strong> checked in
        {presence.occupancyLimit != null && ` of ${presence.occupancyLimit} allowed`}
        {hidden > 0 && presence.people.length > 0 && ` (${hidden} not shown by name)`}.
      </p>
      {presence.people.length > 0 && (
        <ul>
          {presence.people.map((p) => (
            <li key={p.member}>
              {p.name} <time dateTime={p.since}>since {dateTime(p.since)}</time>
            </li>
          ))}
        </ul>
      )}
      <p class="small">
        Members check in by a tap at an entrance door, or on the <a href="/kiosk">kiosk page</a> from their
        phone or a tablet by the door.
      </p>
    </section>
  );
}
