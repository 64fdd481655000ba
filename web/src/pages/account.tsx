import { useEffect, useState } from 'preact/hooks';
import { api, type BrowserSession, type UserMe } from '../api';
import { dateTime, deviceName } from '../format';
import { setMe, signOut } from '../session';
import { NotificationSettings } from './notification-settings';
import { PasswordForm } from './password-form';
import { describe } from './sign-in';
import { languageNames, languages, pickLanguage, t } from '../i18n/i18n';

/** My sign-ins: where I am signed in, sign out there or everywhere; my password; the mails I receive. */
export function AccountPage({ me }: { me: UserMe }) {
  const [sessions, setSessions] = useState<BrowserSession[] | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = () => api.sessions().then(setSessions, (err) => setMessage(describe(err)));
  useEffect(() => void load(), []);

  async function end(session: BrowserSession) {
    if (session.current) return signOut();
    await api.endSession(session.id).catch((err) => setMessage(describe(err)));
    void load();
  }

  async function chooseLanguage(language: string) {
    setMessage(null);
    try {
      await api.setLanguage(me, language || null);
      setMe(await api.me());
      setMessage(t('account.languageSaved'));
    } catch (err) {
      setMessage(describe(err));
    }
  }

  return (
    <main>
      <h1>{t('account.title')}</h1>
      <p>
        {me.firstName} {me.lastName} · {me.emailAddress}
      </p>
      <section aria-labelledby="sessions">
        <h2 id="sessions">{t('account.sessions')}</h2>
        <ul class="rows">
          {(sessions ?? []).map((s) => (
            <li key={s.id}>
              <span title={s.userAgent ?? undefined}>
                {t('account.since', {
                  device: s.current
                    ? t('account.thisBrowser', { device: deviceName(s.userAgent) })
                    : deviceName(s.userAgent),
                  since: dateTime(s.createdAt),
                  seen: dateTime(s.lastSeenAt),
                })}
              </span>
              <button
                type="button"
                class="secondary"
                onClick={() => end(s)}
                aria-label={t('account.signOutOne', {
                  device: s.current ? t('account.thisBrowserShort') : deviceName(s.userAgent),
                  since: dateTime(s.createdAt),
                })}
              >
                {t('account.signOut')}
              </button>
            </li>
          ))}
        </ul>
        <button type="button" class="danger" onClick={() => api.endAllSessions().finally(() => signOut())}>
          {t('account.signOutEverywhere')}
        </button>
      </section>
      <section aria-labelledby="password">
        <h2 id="password">{t('account.password')}</h2>
        <PasswordForm askCurrent onDone={() => setMessage(t('account.passwordSaved'))} />
      </section>
      <section aria-labelledby="language">
        <h2 id="language">{t('account.language')}</h2>
        <label>
          {t('account.languageLabel')}
          <select
            name="language"
            value={me.language ? pickLanguage(me.language) : ''}
            onChange={(e) => void chooseLanguage((e.target as HTMLSelectElement).value)}
          >
            <option value="">{t('account.browserLanguage')}</option>
            {languages.map((l) => (
              <option key={l} value={l} lang={l}>
                {languageNames[l]}
              </option>
            ))}
          </select>
        </label>
      </section>
      <NotificationSettings me={me} />
      {message && <p role="status">{message}</p>}
    </main>
  );
}
