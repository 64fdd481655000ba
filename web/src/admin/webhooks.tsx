import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError, WebhookCategory } from '../api';
import { dateTime } from '../format';
import { billingApi, type WebhookEventRecord, type WebhookRecord } from './billing-api';
import './billing.css';
import { Pager } from './pager';

const PAGE = 20;

/** Every category, with words for the form (the type makes a missing one a build error). */
const categoryNames = {
  member: 'Members',
  memberKey: 'Key cards',
  memberPackage: 'Member packages',
  memberTraining: 'Trainings',
  memberCredit: 'Credits',
  resource: 'Resources',
  resourceLog: 'Resource logs',
  bridge: 'Bridges',
  booking: 'Bookings',
  charge: 'Charges',
  invoice: 'Invoices',
  signUp: 'Sign-ups',
  checkIn: 'Check-ins',
  problemReport: 'Problem reports',
} satisfies Record<WebhookCategory, string>;

const hookName = (h: WebhookRecord) => h.label ?? h.url;

/** The last attempt's answer: the HTTP status, or why there was none. */
function response(e: WebhookEventRecord): string {
  const last = e.delivery.attempts.at(-1);
  if (!last) return '';
  return last.statusCode !== null ? `HTTP ${last.statusCode}` : (last.error ?? 'no answer');
}

function deliveryState(e: WebhookEventRecord): { text: string; kind: string } {
  const d = e.delivery;
  if (d.state === 'delivered') return { text: 'Delivered', kind: 'delivered' };
  if (d.state === 'failed') return { text: 'Failed', kind: 'failed' };
  if (d.attempts.length === 0) return { text: 'Queued', kind: 'pending' };
  const next = d.nextAttemptAt ? `, next try ${new Date(d.nextAttemptAt).toLocaleTimeString('en-GB')}` : '';
  return { text: `Failing${next}`, kind: 'failing' };
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
      <h1>Webhooks</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="stacked">
        <section aria-labelledby="hooks-h">
          <div class="section-head">
            <h2 id="hooks-h">
              {hooks ? `${hooks.length} ${hooks.length === 1 ? 'webhook' : 'webhooks'}` : 'Webhooks'}
            </h2>
            <button type="button" class="primary" onClick={() => setCreating(!creating)}>
              New webhook
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
              Signing secret (shown only now; the receiver verifies signatures with it)
              <textarea class="command secret" readOnly rows={2} value={secret} />
            </label>
          )}
          <table class="list" aria-label="Webhooks">
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">State</th>
                <th scope="col">Categories</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {hooks?.length === 0 && (
                <tr>
                  <td colSpan={4} class="muted">
                    No webhooks yet.
                  </td>
                </tr>
              )}
              {hooks?.map((h) => (
                <tr key={h.id} aria-selected={h.id === selected}>
                  <td data-label="Webhook">
                    <button type="button" class="link" onClick={() => setSelected(h.id)}>
                      {hookName(h)}
                    </button>
                    <div class="hint">{h.url}</div>
                  </td>
                  <td data-label="State">
                    <span class={`delivery-state ${h.state}`}>{h.state}</span>
                    {h.failingSince && <div class="hint">Failures since {dateTime(h.failingSince)}</div>}
                  </td>
                  <td data-label="Categories">{h.categories.map((c) => categoryNames[c] ?? c).join(', ')}</td>
                  <td data-label="Actions">
                    <div class="actions">
                      {h.state === 'active' || h.state === 'failing' ? (
                        <button
                          type="button"
                          class="secondary"
                          onClick={() => act(() => billingApi.setWebhookState(h, 'paused'))}
                        >
                          {`Pause ${hookName(h)}`}
                        </button>
                      ) : (
                        <button
                          type="button"
                          class="secondary"
                          onClick={() => act(() => billingApi.setWebhookState(h, 'active'))}
                        >
                          {`Resume ${hookName(h)}`}
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
                        {`Edit ${hookName(h)}`}
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
                          {`Really delete ${hookName(h)}`}
                        </button>
                      ) : (
                        <button type="button" class="secondary" onClick={() => setConfirming(h.id)}>
                          {`Delete ${hookName(h)}`}
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section aria-label="Deliveries">
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
  const name = hook ? `Edit ${hookName(hook)}` : 'New webhook';
  return (
    <form onSubmit={save} aria-label={name}>
      {hook && <h3>{name}</h3>}
      <label>
        Receiver URL
        <input
          type="url"
          required
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Label
        <input value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
      </label>
      <fieldset class="categories">
        <legend>Events to send</legend>
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
            {categoryNames[c]}
          </label>
        ))}
      </fieldset>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" class="primary">
        {hook ? 'Save webhook' : 'Create webhook'}
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
          ? `Test event ${e.id} delivered: ${response(e)}.`
          : `Test event ${e.id} failed: ${response(e)}.`,
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
          ? `Event ${e.id} is being sent again now.`
          : `Event ${e.id} sent again: ${after.delivery.state === 'delivered' ? 'delivered' : 'failed'}, ${response(after)}.`,
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
        <h2>{`Deliveries of ${hookName(hook)}`}</h2>
        <label class="head-choice">
          Delivery state
          <select
            value={state}
            onChange={(e) => {
              setState((e.target as HTMLSelectElement).value);
              setOffset(0);
            }}
          >
            <option value="">All</option>
            <option value="pending">Queued or failing</option>
            <option value="delivered">Delivered</option>
            <option value="failed">Failed tests</option>
          </select>
        </label>
        <button type="button" class="secondary" onClick={() => void sendTest()}>
          Send test event
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
      <table class="list" aria-label={`Deliveries of ${hookName(hook)}`}>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
            <th scope="col">Response</th>
            <th scope="col">Attempts</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {page?.events.length === 0 && (
            <tr>
              <td colSpan={6} class="muted">
                No deliveries.
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
                <td data-label="Event">{`${e.type} #${e.id}`}</td>
                <td data-label="Created">{dateTime(e.createdAt)}</td>
                <td data-label="Status">
                  <span class={`delivery-state ${s.kind}`}>{s.text}</span>
                </td>
                <td data-label="Response">{response(e)}</td>
                <td data-label="Attempts">{e.delivery.attempts.length}</td>
                <td>
                  {retriable && (
                    <button type="button" class="secondary" onClick={() => void retry(e)}>
                      {`Retry event ${e.id}`}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Pager
        label="Pages of deliveries"
        offset={offset}
        size={PAGE}
        total={page?.total}
        onOffset={setOffset}
      />
    </>
  );
}
