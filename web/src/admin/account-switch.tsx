import { useEffect, useState } from 'preact/hooks';
import { type ApiError, call, type OtherAccounts, type UserAccount, type UserMe } from '../api';
import './billing.css';
import { t } from '../i18n/i18n';

/**
 * Switching accounts, for a person (an e-mail address) with member records in several accounts.
 * The password shows which records are theirs (`POST /user/accounts`); switching signs in to
 * the chosen account's member (`POST /user/login {account}`) and reloads the console there.
 */
export function AccountSwitch({ me, path }: { me: UserMe; path: string }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [accounts, setAccounts] = useState<UserAccount[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Offered only to a person with a member record in another account (GET /user/other-accounts),
  // asked again on each admin page, so an account made meanwhile shows up.
  const [others, setOthers] = useState(0);
  useEffect(() => {
    if (!me.emailAddress) return;
    call<OtherAccounts>('GET', '/user/other-accounts').then(
      (o) => setOthers(o.count),
      () => setOthers(0),
    );
  }, [me.id, path]);

  async function lookup(e: Event) {
    e.preventDefault();
    setError(null);
    setAccounts(null);
    try {
      setAccounts(await call<UserAccount[]>('POST', '/user/accounts', { password }));
    } catch (err) {
      setError((err as ApiError).message);
    }
  }
  async function switchTo(account: UserAccount) {
    setError(null);
    try {
      await call('POST', '/user/login', {
        emailAddress: me.emailAddress,
        password,
        account: account.account,
      });
      setPassword('');
      // A new session in the other account: the app starts again from its sign-in state.
      location.assign('/admin');
    } catch (err) {
      setError((err as ApiError).message);
    }
  }

  if (!me.emailAddress || others === 0) return null;
  return (
    <div class="account-switch">
      <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {t('admin.account_switch.switchAccount')}
      </button>
      {open && (
        <form
          onSubmit={lookup}
          aria-label={t('admin.account_switch.switchAccount')}
          class="account-switch-form"
        >
          <label>
            {t('admin.account_switch.yourPassword')}
            <input
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" class="secondary">
            {t('admin.account_switch.showMyAccounts')}
          </button>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          {accounts && (
            <ul aria-label={t('admin.account_switch.yourAccounts')} class="rows">
              {accounts.length === 1 && (
                <li class="muted">{t('admin.account_switch.thisPasswordOpensNo')}</li>
              )}
              {accounts.map((a) =>
                a.current ? (
                  <li key={a.account}>
                    {t('admin.account_switch.youAreHere', { name: a.accountName, privileges: a.privileges })}
                  </li>
                ) : (
                  <li key={a.account}>
                    <button type="button" class="secondary" onClick={() => void switchTo(a)}>
                      {t('admin.account_switch.switchTo', { name: a.accountName })}
                    </button>{' '}
                    ({a.privileges})
                  </li>
                ),
              )}
            </ul>
          )}
        </form>
      )}
    </div>
  );
}
