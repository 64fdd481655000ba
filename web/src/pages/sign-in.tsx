import { useState } from 'preact/hooks';
import { Field } from '../field';
import { ApiError, api } from '../api';
import { navigate, safeNext } from '../router';
import { signedIn } from '../session';

/** Sign in: an e-mailed link by default, a password for those who set one. */
export function SignInPage({ next }: { next: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [usePassword, setUsePassword] = useState(false);
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

  return (
    <main class="narrow">
      <h1>Sign in</h1>
      <p>
        {next.startsWith('/r/')
          ? 'Sign in to use this machine. You come back to it right after.'
          : 'Sign in to open the doors and switch on the machines of your makerspace.'}
      </p>
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
    </main>
  );
}

export function describe(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 429 && err.retryAfter) return `${err.message} Try again in ${err.retryAfter} s.`;
    return err.message;
  }
  return 'Something went wrong. Try again.';
}
