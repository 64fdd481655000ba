import { useEffect, useState } from 'preact/hooks';
import { Field } from '../field';
import { ApiError, api } from '../api';
import { navigate, safeNext } from '../router';
import { signedIn } from '../session';
import { rich, slot, t } from '../i18n/i18n';

/**
 * Sign in: an e-mailed link by default, a password for those who set one. A hub without mail
 * (GET /hub-info says so) offers no e-mailed link: a password, or a link an admin hands over.
 */
export function SignInPage({ next }: { next: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [usePassword, setUsePassword] = useState(false);
  // null until the hub says whether it sends mail (unknown when it cannot be asked: links offered).
  const [mail, setMail] = useState<boolean | null>(null);
  useEffect(() => {
    api.hubInfo().then(
      (info) => {
        setMail(info.mailConfigured);
        if (!info.mailConfigured) setUsePassword(true);
      },
      () => setMail(true),
    );
  }, []);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<null | 'signIn' | 'passwordReset'>(null);
  const [error, setError] = useState<string | null>(null);

  /** Runs one action of the form: busy while it runs, its error shown. */
  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  }

  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      if (usePassword) {
        signedIn(await api.login(email, password));
        navigate(safeNext(next), { replace: true });
      } else {
        await api.requestLink(email, 'signIn', safeNext(next));
        setSent('signIn');
      }
    });
  };

  const forgot = () => {
    if (!email) {
      setError(t('signIn.enterEmailFirst'));
      return;
    }
    return run(async () => {
      await api.requestLink(email, 'passwordReset', safeNext(next));
      setSent('passwordReset');
    });
  };

  if (sent) {
    return (
      <main class="narrow">
        <h1>{t('signIn.checkMail')}</h1>
        <p role="status">
          {rich(t(sent === 'signIn' ? 'signIn.sentSignIn' : 'signIn.sentReset', { email: slot('email') }), {
            email: <strong>{email}</strong>,
          })}
        </p>
        <button type="button" class="secondary" onClick={() => setSent(null)}>
          {t('signIn.anotherAddress')}
        </button>
      </main>
    );
  }

  if (mail === null) {
    return (
      <main class="narrow">
        <h1>{t('signIn.title')}</h1>
        <p role="status">{t('common.loading')}</p>
      </main>
    );
  }

  return (
    <main class="narrow">
      <h1>{t('signIn.title')}</h1>
      <p>{next.startsWith('/r/') ? t('signIn.forMachine') : t('signIn.forSpace')}</p>
      {!mail && (
        <p class="notice" id="no-mail">
          {t('signIn.noMail')}
        </p>
      )}
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <Field
          label={t('signIn.email')}
          type="email"
          name="email"
          autoComplete="email"
          required
          value={email}
          set={setEmail}
        />
        {usePassword && (
          <Field
            label={t('signIn.password')}
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            set={setPassword}
          />
        )}
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {usePassword ? t('signIn.signIn') : t('signIn.mailLink')}
        </button>
      </form>
      {mail ? (
        <p class="links">
          <button type="button" class="link" onClick={() => setUsePassword(!usePassword)}>
            {usePassword ? t('signIn.useLink') : t('signIn.usePassword')}
          </button>
          {usePassword && (
            <button type="button" class="link" onClick={forgot}>
              {t('signIn.forgot')}
            </button>
          )}
        </p>
      ) : (
        <p class="muted">{t('signIn.noPasswordYet')}</p>
      )}
    </main>
  );
}

/** An error in words (api.ts already put a throttled call's wait into the message, once). */
export function describe(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return t('common.somethingWrong');
}
