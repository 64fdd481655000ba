import { useEffect, useState } from 'preact/hooks';
import { api, type BrowserSession, type UserMe } from '../api';
import { dateTime, deviceName } from '../format';
import { signOut } from '../session';
import { NotificationSettings } from './notification-settings';
import { PasswordForm } from './password-form';
import { describe } from './sign-in';

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

  return (
    <main>
      <h1>Account</h1>
      <p>
        {me.firstName} {me.lastName} · {me.emailAddress}
      </p>
      <section aria-labelledby="sessions">
        <h2 id="sessions">Where you are signed in</h2>
        <ul class="rows">
          {(sessions ?? []).map((s) => (
            <li key={s.id}>
              <span title={s.userAgent ?? undefined}>
                {s.current ? `This browser (${deviceName(s.userAgent)})` : deviceName(s.userAgent)} · since{' '}
                {dateTime(s.createdAt)} · last seen {dateTime(s.lastSeenAt)}
              </span>
              <button
                type="button"
                class="secondary"
                onClick={() => end(s)}
                aria-label={`Sign out ${s.current ? 'this browser' : deviceName(s.userAgent)}, signed in ${dateTime(s.createdAt)}`}
              >
                Sign out
              </button>
            </li>
          ))}
        </ul>
        <button type="button" class="danger" onClick={() => api.endAllSessions().finally(() => signOut())}>
          Sign out everywhere
        </button>
      </section>
      <section aria-labelledby="password">
        <h2 id="password">Password</h2>
        <PasswordForm askCurrent onDone={() => setMessage('Password saved.')} />
      </section>
      <NotificationSettings me={me} />
      {message && <p role="status">{message}</p>}
    </main>
  );
}
