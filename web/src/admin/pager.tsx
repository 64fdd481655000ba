/** Previous/next page buttons for a paged list; nothing when everything fits on one page. */
import { t } from '../i18n/i18n';
export function Pager({
  label,
  offset,
  size,
  total,
  onOffset,
}: {
  /** The navigation's accessible name, e.g. "Pages of charges". */
  label: string;
  offset: number;
  size: number;
  total: number | undefined;
  onOffset: (offset: number) => void;
}) {
  if (total === undefined || total <= size) return null;
  return (
    <nav aria-label={label} class="actions">
      <button
        type="button"
        class="secondary"
        disabled={offset === 0}
        onClick={() => onOffset(Math.max(0, offset - size))}
      >
        {t('admin.pager.previousPage')}
      </button>
      <span>{t('admin.pager.range', { from: offset + 1, to: Math.min(offset + size, total), total })}</span>
      <button
        type="button"
        class="secondary"
        disabled={offset + size >= total}
        onClick={() => onOffset(offset + size)}
      >
        {t('admin.pager.nextPage')}
      </button>
    </nav>
  );
}
