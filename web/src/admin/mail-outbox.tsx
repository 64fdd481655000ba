import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, type NotificationOutbox, type OutboxEntry } from '../api';
import { dateTime } from '../format';
import { kindLabel } from '../pages/notification-settings';
import { t } from '../i18n/i18n';

/** What a mail's state means to an admin. */
function stateText(e: OutboxEntry): string {
  if (e.state === 'sent') return t('admin.mail.sent', { at: e.sentAt ? dateTime(e.sentAt) : '' });
  if (e.state === 'failed') return t('admin.mail.failedAfter', { count: e.attempts });
  if (e.attempts === 0) return t('admin.mail.waiting');
  return e.nextAttemptAt
    ? t('admin.mail.retryingAt', { at: dateTime(e.nextAttemptAt), count: e.attempts })
    : t('admin.mail.retrying', { count: e.attempts });
}

/**
 * The mail outbox (docs/NOTIFICATIONS.md): whether mail is configured, what waits or failed, and
 * the recent sends; a waiting or failed mail can be sent again at once.
 */
export function MailOutboxPage() {
  const [box, setBox] = useState<NotificationOutbox | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => api.notificationOutbox().then(setBox, (e: ApiError) => setError(e.message));
  useEffect(() => void load(), []);

  async function retry(e: OutboxEntry) {
    try {
      await api.retryNotification(e.id);
      setTimeout(() => void load(), 1000);
    } catch (err) {
      setError((err as ApiError).message);
    }
  }

  return (
    <main class="admin">
      <h1>{t('admin.nav.mail')}</h1>
      {error && <p class="error">{error}</p>}
      {box && !box.mailConfigured && (
        <p role="status" class="notice">
          {t('admin.mail.notConfigured', { count: box.queued })}
        </p>
      )}
      {box?.mailConfigured && (
        <p role="status">{t('admin.mail.counts', { queued: box.queued, failed: box.failed })}</p>
      )}
      <section aria-labelledby="outbox-h">
        <h2 id="outbox-h">{t('admin.mail.recent')}</h2>
        <ul class="rows" aria-label={t('admin.mail.notifications')}>
          {box && box.entries.length === 0 && <li class="muted">{t('admin.mail.none')}</li>}
          {box?.entries.map((e) => (
            <li key={e.id} class={e.state === 'failed' ? 'bad' : ''}>
              <span>
                <time dateTime={e.createdAt}>{dateTime(e.createdAt)}</time> · {e.memberName ?? `#${e.member}`}{' '}
                · {e.subject ?? kindLabel(e.kind)} · {stateText(e)}
                {e.lastError && e.state !== 'sent' ? ` · ${e.lastError}` : ''}
              </span>
              {e.state !== 'sent' && box.mailConfigured && (
                <button type="button" class="secondary" onClick={() => retry(e)}>
                  {t('admin.mail.sendNow')}
                </button>
              )}
            </li>
          ))}
        </ul>
        <button type="button" class="secondary" onClick={() => void load()}>
          {t('admin.mail.refresh')}
        </button>
      </section>
    </main>
  );
}
