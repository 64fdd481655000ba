import { useEffect, useState } from 'preact/hooks';
import { Field } from '../field';
import { ApiError, api } from '../api';
import { navigate, safeNext } from '../router';
import { signedIn } from '../session';

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
      setError('Enter your e-mail address first.');
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
        <h1>Check your e-mail</h1>
        <p role="status">
          If <strong>{email}</strong> belongs to a member, a{' '}
          {sent === 'signIn' ? 'sign-in link' : 'link to choose a new password'} is on its way. It works once,
          for 15 minutes.
        </p>
        <button type="button" class="secondary" onClick={() => setSent(null)}>
          Use another address
        </button>
      </main>
    );
  }

  if (mail === null) {
    return (
      <main class="narrow">
        <h1>Sign in</h1>
        <p role="status">Loading…</p>
      </main>
    );
  }

  return (
    <main class="narrow">
      <h1>Sign in</h1>
      <p>
        {next.startsWith('/r/')
          ? 'Sign in to use this machine. You come back to it right after.'
          : 'Sign in to open the doors and switch on the machines of your makerspace.'}
      </p>
      {!mail && (
        <p class="notice" id="no-mail">
          This hub sends no e-mail. Sign in with your password, or ask an admin of your space for a sign-in
          link: they make one on your member page and hand it to you.
        </p>
      )}
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <Field
          label="E-mail address"
          type="email"
          name="email"
          autoComplete="email"
          required
          value={email}
          set={setEmail}
        />
        {usePassword && (
          <Field
            label="Password"
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
          {usePassword ? 'Sign in' : 'E-mail me a sign-in link'}
        </button>
      </form>
      {mail ? (
        <p class="links">
          <button type="button" class="link" onClick={() => setUsePassword(!usePassword)}>
            {usePassword ? 'Use an e-mailed link instead' : 'Use a password instead'}
          </button>
          {usePassword && (
            <button type="button" class="link" onClick={forgot}>
              Forgot your password?
            </button>
          )}
        </p>
      ) : (
        <p class="muted">No password yet, or forgot it? An admin's sign-in link lets you choose a new one.</p>
      )}
    </main>
  );
}

/** An error in words (api.ts already put a throttled call's wait into the message, once). */
export function describe(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return 'Something went wrong. Try again.';
}
