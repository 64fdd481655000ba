import { useEffect, useState } from 'preact/hooks';
import { api, type SignInResult } from '../api';
import { navigate, safeNext } from '../router';
import { signedIn } from '../session';
import { describe } from './sign-in';
import { PasswordForm } from './password-form';
import { t } from '../i18n/i18n';

/**
 * Where e-mailed links land: `/sign-in/link#token=...&next=...` (the token stays in the fragment,
 * so it never reaches a server log). Invitations and resets then ask for a password.
 */
export function SignInLinkPage({ token, next }: { token: string | null; next: string | null }) {
  const [result, setResult] = useState<SignInResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!token) {
      setError(t('signInLink.incomplete'));
      return;
    }
    // The fragment goes at once: a reload or a shared screenshot must not carry the token.
    history.replaceState(null, '', '/sign-in/link');
    api
      .redeemLink(token)
      .then((r) => {
        signedIn(r);
        if (r.purpose === 'signIn') navigate(safeNext(r.next ?? next), { replace: true });
        else setResult(r);
      })
      .catch((err) => setError(describe(err)));
  }, [token]);

  if (error) {
    return (
      <main class="narrow">
        <h1>{t('signInLink.title')}</h1>
        <p class="error" role="alert">
          {error}
        </p>
        <a class="button primary" href="/sign-in">
          {t('signInLink.newLink')}
        </a>
      </main>
    );
  }
  if (!result) {
    return (
      <main class="narrow">
        <p role="status">{t('signInLink.signingIn')}</p>
      </main>
    );
  }
  const done = () => navigate(safeNext(result.next ?? next), { replace: true });
  return (
    <main class="narrow">
      <h1>
        {result.purpose === 'invitation'
          ? t('signInLink.welcome', { name: result.member.firstName })
          : t('signInLink.choosePassword')}
      </h1>
      <p>{result.purpose === 'invitation' ? t('signInLink.invitationText') : t('signInLink.resetText')}</p>
      <PasswordForm onDone={done} />
      {result.purpose === 'invitation' && (
        <button type="button" class="link" onClick={done}>
          {t('signInLink.skip')}
        </button>
      )}
    </main>
  );
}
