import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { t } from './i18n/i18n';

/**
 * Until HUB_PUBLIC_URL is set, what the hub prints and pairs with names localhost, which phones
 * and Pis cannot reach: the stickers page and the pairing panel say so (GET /hub-info).
 */
export function LocalhostWarning({ what }: { what: string }) {
  const [unset, setUnset] = useState(false);
  useEffect(() => {
    api.hubInfo().then(
      (info) => setUnset(!info.publicUrlSet),
      () => {},
    );
  }, []);
  if (!unset) return null;
  return (
    <p role="alert" class="warning">
      {t('localhost.warning', { what })}
    </p>
  );
}
