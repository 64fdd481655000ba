import { useEffect, useState } from 'preact/hooks';
import { api, type ResourceRecord } from '../api';
import { LocalhostWarning } from '../localhost-warning';
import { describe } from './sign-in';
import { currentLanguage, t } from '../i18n/i18n';

/**
 * QR stickers laid out on A4 (admins): `/stickers?ids=1,2,3`, or every resource. Each sticker is
 * the hub's SVG (GET /api/v1/resources/{id}/sticker), 60 x 80 mm; print at 100 %.
 */
export function StickersPage({ ids }: { ids: number[] }) {
  const [resources, setResources] = useState<ResourceRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.resources().then(
      (all) => setResources(ids.length ? all.filter((r) => ids.includes(r.id)) : all),
      (err) => setError(describe(err)),
    );
  }, [ids.join(',')]);
  return (
    <main class="stickers-page">
      <div class="no-print">
        <h1>{t('stickers.title')}</h1>
        <p>{t('stickers.intro')}</p>
        <LocalhostWarning what={t('stickers.these')} />
        {error && <p class="error">{error}</p>}
        <button type="button" class="primary" onClick={() => window.print()}>
          {t('stickers.print')}
        </button>
      </div>
      <div class="sheet">
        {(resources ?? []).map((r) => (
          <img
            key={r.id}
            src={`/api/v1/resources/${r.id}/sticker?lang=${currentLanguage()}`}
            alt={t('stickers.alt', { name: r.name })}
            width={227}
            height={302}
          />
        ))}
      </div>
    </main>
  );
}
