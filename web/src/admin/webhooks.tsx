import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError, WebhookCategory } from '../api';
import { dateTime } from '../format';
import { billingApi, type WebhookEventRecord, type WebhookRecord } from './billing-api';
import './billing.css';
import { Pager } from './pager';
import { locale, t, tOr } from '../i18n/i18n';

const PAGE = 20;

/** Every category, with words for the form (the type makes a missing one a build error). */
const categoryNames = {
  member: 'member',
  memberKey: 'memberKey',
  memberPackage: 'memberPackage',
  memberTraining: 'memberTraining',
  memberCredit: 'memberCredit',
  resource: 'resource',
  resourceLog: 'resourceLog',
  bridge: 'bridge',
  booking: 'booking',
  charge: 'charge',
  invoice: 'invoice',
  signUp: 'signUp',
  checkIn: 'checkIn',
  problemReport: 'problemReport',
} satisfies Record<WebhookCategory, string>;
/** A category in the words of the form (`admin.webhooks.category.*`). */
const categoryName = (c: string) => tOr(`admin.webhooks.category.${c}`, c);

const hookName = (h: WebhookRecord) => h.label ?? h.url;

/** The last attempt's answer: the HTTP status, or why there was none. */
function response(e: WebhookEventRecord): string {
  const last = e.delivery.attempts.at(-1);
  if (!last) return '';
  return last.statusCode !== null ? `HTTP ${last.statusCode}` : (last.error ?? t('admin.webhooks.noAnswer'));
}

function deliveryState(e: WebhookEventRecord): { text: string; kind: string } {
  const d = e.delivery;
  if (d.state === 'delivered') return { text: t('admin.webhooks.delivered'), kind: 'delivered' };
  if (d.state === 'failed') return { text: t('admin.webhooks.failed'), kind: 'failed' };
  if (d.attempts.length === 0) return { text: t('admin.webhooks.queued'), kind: 'pending' };
  const next = d.nextAttemptAt
    ? t('admin.webhooks.nextTry', { time: new Date(d.nextAttemptAt).toLocaleTimeString(locale()) })
    : '';
  return { text: `${t('admin.webhooks.failing')}${next}`, kind: 'failing' };
}

/**
 * Webhooks: the account's webhooks with their state, create, pause/resume, delete; one
 * webhook's deliveries with status and response code, retry, and a test event.
 */
export function WebhooksPage() {
  const [hooks, setHooks] = useState<WebhookRecord[] | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Only the newest answer counts: an older one arriving late would undo a change just made.
  const asked = useRef(0);
  const load = () => {
    const n = ++asked.current;
    return billingApi
      .webhooks()
      .then((list) => {
        if (n !== asked.current) return;
        setHooks(list);
        setSelected((id) => (id !== null && list.some((h) => h.id === id) ? id : (list[0]?.id ?? null)));
      })
      .catch((e: ApiError) => setError(e.message));
  };
  useEffect(() => {
    void load();
    const t = setInterval(load, 5000);
    return () => clearInterval(t);
  }, []);
  const act = async (what: () => Promise<unknown>) => {
    setError(null);
    try {
      await what();
    } catch (e) {
      setError((e as ApiError).message);
    }
    await load();
  };
  const hook = hooks?.find((h) => h.id === selected) ?? null;

  return (
    <main class="admin webhooks">
      <h1>{t('admin.webhooks.webhooks')}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="stacked">
        <section aria-labelledby="hooks-h">
          <div class="section-head">
            <h2 id="hooks-h">
              {hooks ? t('admin.webhooks.count', { count: hooks.length }) : t('admin.webhooks.webhooks')}
            </h2>
            <button type="button" class="primary" onClick={() => setCreating(!creating)}>
              {t('admin.webhooks.newWebhook')}
            </button>
          </div>
          {creating && (
            <WebhookForm
              hook={null}
              onSaved={(h) => {
                setCreating(false);
                setSecret(h.secret ?? null);
                setSelected(h.id);
                void load();
              }}
            />
          )}
          {hooks
            ?.filter((h) => h.id === editing)
            .map((h) => (
              <WebhookForm
                key={h.id}
                hook={h}
                onSaved={() => {
                  setEditing(null);
                  void load();
                }}
              />
            ))}
          {secret && (
            <label>
              {t('admin.webhooks.secret')}
              <textarea class="command secret" readOnly rows={2} value={secret} />
            </label>
          )}
          <table class="list" aria-label={t('admin.webhooks.webhooks')}>
            <thead>
              <tr>
                <th scope="col">{t('admin.webhooks.webhook')}</th>
                <th scope="col">{t('admin.webhooks.state')}</th>
                <th scope="col">{t('admin.webhooks.categories')}</th>
                <th scope="col">{t('admin.webhooks.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {hooks?.length === 0 && (
                <tr>
                  <td colSpan={4} class="muted">
                    {t('admin.webhooks.noWebhooksYet')}
                  </td>
                </tr>
              )}
              {hooks?.map((h) => (
                <tr key={h.id} aria-selected={h.id === selected}>
                  <td data-label={t('admin.webhooks.webhook')}>
                    <button type="button" class="link" onClick={() => setSelected(h.id)}>
                      {hookName(h)}
                    </button>
                    <div class="hint">{h.url}</div>
                  </td>
                  <td data-label={t('admin.webhooks.state')}>
                    <span class={`delivery-state ${h.state}`}>
                      {tOr(`admin.webhooks.hookState.${h.state}`, h.state)}
                    </span>
                    {h.failingSince && (
                      <div class="hint">
                        {t('admin.webhooks.failuresSince', { since: dateTime(h.failingSince) })}
                      </div>
                    )}
                  </td>
                  <td data-label={t('admin.webhooks.categories')}>
                    {h.categories.map(categoryName).join(', ')}
                  </td>
                  <td data-label={t('admin.webhooks.actions')}>
                    <div class="actions">
                      {h.state === 'active' || h.state === 'failing' ? (
                        <button
                          type="button"
                          class="secondary"
                          onClick={() => act(() => billingApi.setWebhookState(h, 'paused'))}
                        >
                          {t('admin.webhooks.pause', { name: hookName(h) })}
                        </button>
                      ) : (
                        <button
                          type="button"
                          class="secondary"
                          onClick={() => act(() => billingApi.setWebhookState(h, 'active'))}
                        >
                          {t('admin.webhooks.resume', { name: hookName(h) })}
                        </button>
                      )}
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => {
                          setEditing(editing === h.id ? null : h.id);
                          setCreating(false);
                        }}
                      >
                        {t('admin.form_parts.editWhat', { what: hookName(h) })}
                      </button>
                      {confirming === h.id ? (
                        <button
                          type="button"
                          class="danger"
                          onClick={() =>
                            act(async () => {
                              setConfirming(null);
                              await billingApi.deleteWebhook(h.id);
                            })
                          }
                        >
                          {t('admin.webhooks.reallyDelete', { name: hookName(h) })}
                        </button>
                      ) : (
                        <button type="button" class="secondary" onClick={() => setConfirming(h.id)}>
                          {t('admin.form_parts.deleteWhat', { what: hookName(h) })}
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section aria-label={t('admin.webhooks.deliveries')}>
          {hook && <Deliveries key={hook.id} hook={hook} onChange={load} />}
        </section>
      </div>
    </main>
  );
}

/** A new webhook (`hook` null), or the URL, label and categories of one. */
function WebhookForm({
  hook,
  onSaved,
}: {
  hook: WebhookRecord | null;
  onSaved: (h: WebhookRecord & { secret?: string }) => void;
}) {
  const [url, setUrl] = useState(hook?.url ?? 'https://');
  const [label, setLabel] = useState(hook?.label ?? '');
  const [chosen, setChosen] = useState<WebhookCategory[]>(hook?.categories ?? []);
  const [error, setError] = useState<string | null>(null);
  async function save(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const fields = { url: url.trim(), categories: chosen };
      onSaved(
        hook
          ? await billingApi.updateWebhook(hook, { ...fields, label: label.trim() || null })
          : await billingApi.createWebhook({ ...fields, label: label.trim() || undefined }),
      );
    } catch (err) {
      setError((err as ApiError).message);
    }
  }
  const name = hook
    ? t('admin.form_parts.editWhat', { what: hookName(hook) })
    : t('admin.webhooks.newWebhook');
  return (
    <form onSubmit={save} aria-label={name}>
      {hook && <h3>{name}</h3>}
      <label>
        {t('admin.webhooks.receiverUrl')}
        <input
          type="url"
          required
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        {t('admin.webhooks.label')}
        <input value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
      </label>
      <fieldset class="categories">
        <legend>{t('admin.webhooks.eventsToSend')}</legend>
        {(Object.keys(categoryNames) as WebhookCategory[]).map((c) => (
          <label key={c} class="category">
            <input
              type="checkbox"
              checked={chosen.includes(c)}
              onChange={(e) =>
                setChosen(
                  (e.target as HTMLInputElement).checked ? [...chosen, c] : chosen.filter((x) => x !== c),
                )
              }
            />
            {categoryName(c)}
          </label>
        ))}
      </fieldset>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" class="primary">
        {hook ? t('admin.webhooks.save') : t('admin.webhooks.create')}
      </button>
    </form>
  );
}

function Deliveries({ hook, onChange }: { hook: WebhookRecord; onChange: () => void }) {
  const [state, setState] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ events: WebhookEventRecord[]; total: number } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const asked = useRef(0);
  const load = () => {
    const n = ++asked.current;
    return billingApi
      .deliveries(hook.id, state, offset, PAGE)
      .then(({ body, total }) => {
        if (n === asked.current) setPage({ events: body, total: total ?? body.length });
      })
      .catch((e: ApiError) => setError(e.message));
  };
  // Deliveries change on their own (retries, new events): the list follows every 2 s.
  useEffect(() => {
    void load();
    const t = setInterval(load, 2000);
    return () => clearInterval(t);
  }, [hook.id, state, offset]);

  async function sendTest() {
    setNotice(null);
    setError(null);
    try {
      const e = await billingApi.sendTest(hook.id);
      setNotice(
        e.delivery.state === 'delivered'
          ? t('admin.webhooks.testDelivered', { id: e.id, response: response(e) })
          : t('admin.webhooks.testFailed', { id: e.id, response: response(e) }),
      );
    } catch (err) {
      setError((err as ApiError).message);
    }
    await load();
  }
  async function retry(e: WebhookEventRecord) {
    setNotice(null);
    setError(null);
    try {
      const after = await billingApi.retry(hook.id, e.delivery.id);
      setNotice(
        after.delivery.state === 'pending'
          ? t('admin.webhooks.sendingAgain', { id: e.id })
          : t('admin.webhooks.sentAgain', {
              id: e.id,
              state:
                after.delivery.state === 'delivered'
                  ? t('admin.webhooks.deliveredLower')
                  : t('admin.webhooks.failedLower'),
              response: response(after),
            }),
      );
    } catch (err) {
      setError((err as ApiError).message);
    }
    await load();
    onChange();
  }

  return (
    <>
      <div class="section-head">
        <h2>{t('admin.webhooks.deliveriesOf', { name: hookName(hook) })}</h2>
        <label class="head-choice">
          {t('admin.webhooks.deliveryState')}
          <select
            value={state}
            onChange={(e) => {
              setState((e.target as HTMLSelectElement).value);
              setOffset(0);
            }}
          >
            <option value="">{t('admin.webhooks.all')}</option>
            <option value="pending">{t('admin.webhooks.queuedOrFailing')}</option>
            <option value="delivered">{t('admin.webhooks.delivered')}</option>
            <option value="failed">{t('admin.webhooks.failedTests')}</option>
          </select>
        </label>
        <button type="button" class="secondary" onClick={() => void sendTest()}>
          {t('admin.webhooks.sendTestEvent')}
        </button>
      </div>
      {notice && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table class="list" aria-label={t('admin.webhooks.deliveriesOf', { name: hookName(hook) })}>
        <thead>
          <tr>
            <th scope="col">{t('admin.webhooks.event')}</th>
            <th scope="col">{t('admin.webhooks.created')}</th>
            <th scope="col">{t('admin.webhooks.status')}</th>
            <th scope="col">{t('admin.webhooks.response')}</th>
            <th scope="col">{t('admin.webhooks.attempts')}</th>
            <th scope="col">
              <span class="visually-hidden">{t('admin.webhooks.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {page?.events.length === 0 && (
            <tr>
              <td colSpan={6} class="muted">
                {t('admin.webhooks.noDeliveries')}
              </td>
            </tr>
          )}
          {page?.events.map((e) => {
            const s = deliveryState(e);
            const retriable =
              e.delivery.state === 'failed' ||
              (e.delivery.state === 'pending' && e.delivery.attempts.length > 0);
            return (
              <tr key={e.delivery.id}>
                <td data-label={t('admin.webhooks.event')}>{`${e.type} #${e.id}`}</td>
                <td data-label={t('admin.webhooks.created')}>{dateTime(e.createdAt)}</td>
                <td data-label={t('admin.webhooks.status')}>
                  <span class={`delivery-state ${s.kind}`}>{s.text}</span>
                </td>
                <td data-label={t('admin.webhooks.response')}>{response(e)}</td>
                <td data-label={t('admin.webhooks.attempts')}>{e.delivery.attempts.length}</td>
                <td>
                  {retriable && (
                    <button type="button" class="secondary" onClick={() => void retry(e)}>
                      {t('admin.webhooks.retry', { id: e.id })}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Pager
        label={t('admin.webhooks.pagesOfDeliveries')}
        offset={offset}
        size={PAGE}
        total={page?.total}
        onOffset={setOffset}
      />
    </>
  );
}
