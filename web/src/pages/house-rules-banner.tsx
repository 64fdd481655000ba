import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from '../api';
import './join.css';
import { t } from '../i18n/i18n';

interface UserHouseRules {
  version: number;
  houseRules: string;
  waiver: string;
  accepted: boolean;
}

/**
 * On the member's home page: a changed version of the space's house rules and waiver asks to be
 * accepted (once per version); the acceptance is stored with its version and time.
 */
export function HouseRulesBanner() {
  const [rules, setRules] = useState<UserHouseRules | null>(null);
  const [checked, setChecked] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const load = () => call<UserHouseRules>('GET', '/user/house-rules').then(setRules, () => setRules(null));
  useEffect(() => {
    void load();
  }, []);
  if (!rules || rules.accepted) return null;
  const accept = (event: Event) => {
    event.preventDefault();
    setError(null);
    call<UserHouseRules>('POST', '/user/house-rules/accept', { version: rules.version }).then(
      setRules,
      (err) => {
        setError(err instanceof ApiError ? err.message : t('common.couldNotSave'));
        // A newer version came meanwhile: show that one.
        if (err instanceof ApiError && err.status === 409) {
          setChecked(false);
          void load();
        }
      },
    );
  };
  return (
    <section class="house-rules" aria-labelledby="house-rules-title">
      <h2 id="house-rules-title">{t('houseRules.changed')}</h2>
      <p>{t('houseRules.readVersion', { version: rules.version })}</p>
      {/* Sanitized by the hub (rich-text subset). */}
      <div class="rich-text" dangerouslySetInnerHTML={{ __html: rules.houseRules }} />
      <h3>{t('houseRules.waiver')}</h3>
      <div class="rich-text" dangerouslySetInnerHTML={{ __html: rules.waiver }} />
      <form onSubmit={accept}>
        <label class="choice">
          <input
            type="checkbox"
            required
            checked={checked}
            onChange={(e) => setChecked((e.target as HTMLInputElement).checked)}
          />
          <span>{t('houseRules.accept', { version: rules.version })}</span>
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={!checked}>
          {t('houseRules.acceptButton')}
        </button>
      </form>
    </section>
  );
}
