import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, type NotificationOutbox, type OutboxEntry } from '../api';
import { dateTime } from '../format';
import { kindLabel } from '../pages/notification-settings';

/** What a mail's state means to an admin. */
function stateText(e: OutboxEntry): string {
  if (e.state === 'sent') return `Sent ${e.sentAt ? dateTime(e.sentAt) : ''}`;
  if (e.state === 'failed') return `Failed after ${e.attempts} attempts`;
  if (e.attempts === 0) return 'Waiting';
  return `Retrying${e.nextAttemptAt ? ` at ${dateTime(e.nextAttemptAt)}` : ''} (${e.attempts} attempts)`;
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
      <h1>Mail</h1>
      {error && <p class="error">{error}</p>}
      {box && !box.mailConfigured && (
        <p role="status" class="notice">
          Mail is not configured (HUB_SMTP_URL); {box.queued} notification{box.queued === 1 ? '' : 's'}{' '}
          waiting.
        </p>
      )}
      {box?.mailConfigured && (
        <p role="status">
          {box.queued} waiting, {box.failed} failed.
        </p>
      )}
      <section aria-labelledby="outbox-h">
        <h2 id="outbox-h">Recent notifications</h2>
        <ul class="rows" aria-label="Notifications">
          {box && box.entries.length === 0 && <li class="muted">No notifications yet.</li>}
          {box?.entries.map((e) => (
            <li key={e.id} class={e.state === 'failed' ? 'bad' : ''}>
              <span>
                <time dateTime={e.createdAt}>{dateTime(e.createdAt)}</time> · {e.memberName ?? `#${e.member}`}{' '}
                · {e.subject ?? kindLabel(e.kind)} · {stateText(e)}
                {e.lastError && e.state !== 'sent' ? ` · ${e.lastError}` : ''}
              </span>
              {e.state !== 'sent' && box.mailConfigured && (
                <button type="button" class="secondary" onClick={() => retry(e)}>
                  Send now
                </button>
              )}
            </li>
          ))}
        </ul>
        <button type="button" class="secondary" onClick={() => void load()}>
          Refresh
        </button>
      </section>
    </main>
  );
}
