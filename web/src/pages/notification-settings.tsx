import { useEffect, useState } from 'preact/hooks';
import { api, type NotificationSettingsRecord, type UserMe } from '../api';
import './notification-settings.css';
import { describe } from './sign-in';

/** The mails a member may receive, in the words of the account page (docs/NOTIFICATIONS.md). */
export const memberKinds: [string, string][] = [
  ['invoiceIssued', 'A new invoice'],
  ['paymentReceived', 'A payment received'],
  ['paymentFailed', 'A payment that failed'],
  ['balanceLow', 'My prepaid balance runs out'],
  ['bookingMade', 'A booking made (with a calendar file)'],
  ['bookingChanged', 'A booking changed'],
  ['bookingCancelled', 'A booking cancelled'],
  ['bookingReminder', 'A reminder the day before a booking'],
  ['packageEnding', 'My package ends in 14 days'],
  ['trainingExpiring', 'A training expires in 30 days'],
  ['cardLost', 'My key card reported lost'],
  ['problemReported', 'A problem reported on a machine I maintain'],
];
export const adminKinds: [string, string][] = [
  ['bridgeOffline', 'A bridge is offline'],
  ['webhookFailing', 'A webhook is failing'],
  ['memberPaymentFailed', 'A member’s payment failed'],
  ['signUpWaiting', 'A sign-up waiting for approval'],
];

/** Checkboxes for the mails the signed-in member receives; each change is saved at once. */
export function NotificationSettings({ me }: { me: UserMe }) {
  const [settings, setSettings] = useState<NotificationSettingsRecord | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    api.notificationSettings(me.id).then(setSettings, (err) => setMessage(describe(err)));
  }, [me.id]);

  async function toggle(kind: string, on: boolean) {
    const before = settings;
    // Shown at once (a re-render must not put the box back); the hub's answer then confirms it.
    if (before) setSettings({ ...before, [kind]: on });
    setMessage(null);
    try {
      setSettings(await api.setNotificationSettings(me.id, { [kind]: on }));
      setMessage('Saved.');
    } catch (err) {
      setSettings(before);
      setMessage(describe(err));
    }
  }

  const values = settings as Record<string, unknown> | null;
  const box = ([kind, label]: [string, string]) =>
    values && typeof values[kind] === 'boolean' ? (
      <li key={kind}>
        <label>
          <input
            type="checkbox"
            checked={values[kind] as boolean}
            onChange={(e) => toggle(kind, (e.target as HTMLInputElement).checked)}
          />{' '}
          {label}
        </label>
      </li>
    ) : null;

  return (
    <section aria-labelledby="notifications">
      <h2 id="notifications">Mail notifications</h2>
      <p>Send me an e-mail about:</p>
      <ul class="rows notification-kinds" aria-label="Mail notifications">
        {memberKinds.map(box)}
      </ul>
      {values && typeof values.bridgeOffline === 'boolean' && (
        <>
          <p>As an admin, about:</p>
          <ul class="rows notification-kinds" aria-label="Admin notifications">
            {adminKinds.map(box)}
          </ul>
        </>
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}
