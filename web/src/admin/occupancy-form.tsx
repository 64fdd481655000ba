import { useState } from 'preact/hooks';
import { type ApiError, call, type SpaceRecord } from '../api';
import { t } from '../i18n/i18n';

/** A space's occupancy limit: how many may be checked in at once (empty: no limit). */
export function OccupancyForm({ space, onSaved }: { space: SpaceRecord; onSaved: (s: SpaceRecord) => void }) {
  const [limit, setLimit] = useState(space.occupancyLimit === null ? '' : String(space.occupancyLimit));
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function save(e: Event) {
    e.preventDefault();
    setStatus(null);
    setError(null);
    const occupancyLimit = limit.trim() === '' ? null : Number(limit);
    try {
      const saved = await call<SpaceRecord>('PUT', `/spaces/${space.id}`, {
        occupancyLimit,
        lockVersion: space.lockVersion,
      });
      onSaved(saved);
      setStatus(
        saved.occupancyLimit === null
          ? t('admin.occupancy_form.noLimit')
          : t('admin.occupancy_form.atMost', { limit: saved.occupancyLimit }),
      );
    } catch (err) {
      setError((err as ApiError).message);
    }
  }

  return (
    <form onSubmit={save} aria-label={t('admin.occupancy_form.spaceOccupancyLimit')}>
      <h2>{t('admin.occupancy_form.occupancyLimit')}</h2>
      <div class="actions">
        <label class="grow">
          {t('admin.occupancy_form.peopleAtOnce')}
          <input
            inputMode="numeric"
            value={limit}
            onInput={(e) => setLimit((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="secondary">
          {t('admin.occupancy_form.saveLimit')}
        </button>
      </div>
      <p class="muted">{t('admin.occupancy_form.countedAtEntranceDoors')}</p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {status && (
        <p role="status" class="notice">
          {status}
        </p>
      )}
    </form>
  );
}
