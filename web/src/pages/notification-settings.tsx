import { useEffect, useState } from 'preact/hooks';
import { api, type NotificationSettingsRecord, type UserMe } from '../api';
import './notification-settings.css';
import { describe } from './sign-in';
import { t, tOr } from '../i18n/i18n';

/** The mails a member may receive (docs/NOTIFICATIONS.md); their words are `notifications.kinds.*`. */
export const memberKinds = [
  'invoiceIssued',
  'paymentReceived',
  'paymentFailed',
  'balanceLow',
  'bookingMade',
  'bookingChanged',
  'bookingCancelled',
  'bookingReminder',
  'packageEnding',
  'trainingExpiring',
  'cardLost',
  'problemReported',
];
export const adminKinds = ['bridgeOffline', 'webhookFailing', 'memberPaymentFailed', 'signUpWaiting'];

/** A kind of mail in the words of the account page. */
export const kindLabel = (kind: string): string => tOr(`notifications.kinds.${kind}`, kind);

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
      setMessage(t('common.saved'));
    } catch (err) {
      setSettings(before);
      setMessage(describe(err));
    }
  }

  const values = settings as Record<string, unknown> | null;
  const box = (kind: string) =>
    values && typeof values[kind] === 'boolean' ? (
      <li key={kind}>
        <label>
          <input
            type="checkbox"
            checked={values[kind] as boolean}
            onChange={(e) => toggle(kind, (e.target as HTMLInputElement).checked)}
          />{' '}
          {kindLabel(kind)}
        </label>
      </li>
    ) : null;

  return (
    <section aria-labelledby="notifications">
      <h2 id="notifications">{t('notifications.title')}</h2>
      <p>{t('notifications.sendMe')}</p>
      <ul class="rows notification-kinds" aria-label={t('notifications.title')}>
        {memberKinds.map(box)}
      </ul>
      {values && typeof values.bridgeOffline === 'boolean' && (
        <>
          <p>{t('notifications.asAdmin')}</p>
          <ul class="rows notification-kinds" aria-label={t('notifications.adminList')}>
            {adminKinds.map(box)}
          </ul>
        </>
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}
