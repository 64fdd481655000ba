import { useState } from 'preact/hooks';
import { Field } from '../field';
import { api } from '../api';
import { describe } from './sign-in';
import { t } from '../i18n/i18n';

/** Sets the signed-in member's password (the current one is asked for unless just signed in by link). */
export function PasswordForm({ onDone, askCurrent = false }: { onDone: () => void; askCurrent?: boolean }) {
  const [password, setPassword] = useState('');
  const [current, setCurrent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.setPassword(password, askCurrent ? current : undefined);
      onDone();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit}>
      {askCurrent && (
        <Field
          label={t('password.current')}
          type="password"
          autoComplete="current-password"
          value={current}
          set={setCurrent}
        />
      )}
      <Field
        label={t('password.new')}
        type="password"
        autoComplete="new-password"
        minLength={10}
        required
        aria-describedby="password-hint"
        value={password}
        set={setPassword}
      />
      <p id="password-hint" class="hint">
        {t('password.hint')}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {t('password.save')}
      </button>
    </form>
  );
}
