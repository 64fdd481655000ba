import type { ShadowReceiver, ShadowReport } from '@makerspace/shared';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { Alert, errorText, useList } from './form-parts';

const reasonText = (decision: string, reason: string | null, message?: string | null) =>
  `${decision}${reason ? ` (${reason})` : ''}${message && decision === 'denied' ? `: ${message}` : ''}`;

/**
 * Shadow mode: how the hub's rules decide beside the server it replaces. `makerspace-hub
 * shadow` compares; this page shows the agreement per resource and each disagreement, so the
 * admins know what to fix before moving a door (docs/MOVING.md).
 */
export function ShadowPage() {
  const [report, setReport] = useState<ShadowReport | null>(null);
  const [zone, setZone] = useState('UTC');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call<ShadowReport>('GET', '/shadow-report?limit=500').then(setReport, (e) => setError(errorText(e)));
    // Times in the space's zone, as the members lived them.
    call<{ space: number }>('GET', '/user/me')
      .then((me) => call<{ timezone: string | null }>('GET', `/spaces/${me.space}`))
      .then((space) => space.timezone && setZone(space.timezone))
      .catch(() => {});
  }, []);
  const when = (iso: string) =>
    new Date(iso).toLocaleString('en-GB', { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
  return (
    <main class="admin">
      <h1>Shadow mode</h1>
      <p class="muted">
        Each allowed and denied decision of the server this hub replaces, beside what this hub’s rules decide
        for the same member, resource and moment. Run{' '}
        <code>makerspace-hub shadow --url … --token … --every 15</code> on the hub’s server to fill it, or let
        their webhooks bring each decision as it happens (below); fix what disagrees, then move the doors one
        at a time.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {report && report.resources.length === 0 && <p>Nothing compared yet.</p>}
      {report && report.resources.length > 0 && (
        <>
          <table class="list" aria-label="Agreement per resource">
            <thead>
              <tr>
                <th scope="col">Resource</th>
                <th scope="col">Decisions</th>
                <th scope="col">Agree</th>
                <th scope="col">Latest</th>
              </tr>
            </thead>
            <tbody>
              {report.resources.map((r) => (
                <tr key={`${r.source} ${r.remoteResource}`}>
                  <td>{r.resourceName ?? `None here for their resource ${r.remoteResource}`}</td>
                  <td>{r.compared}</td>
                  <td>{`${r.agreed} (${r.compared ? ((100 * r.agreed) / r.compared).toFixed(1) : '-'}%)`}</td>
                  <td>{r.latest ? when(r.latest) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Disagreements</h2>
          {report.disagreements.length === 0 ? (
            <p>None: every compared decision agrees.</p>
          ) : (
            <table class="list" aria-label="Disagreements">
              <thead>
                <tr>
                  <th scope="col">{`When (${zone})`}</th>
                  <th scope="col">Member</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Theirs</th>
                  <th scope="col">Ours</th>
                </tr>
              </thead>
              <tbody>
                {report.disagreements.map((d) => (
                  <tr key={`${d.source} ${d.remoteLog}`}>
                    <td>{when(d.at)}</td>
                    <td>
                      {d.memberName ?? (d.remoteMember ? `their member ${d.remoteMember}` : 'no member')}
                    </td>
                    <td>{d.resourceName ?? `their resource ${d.remoteResource}`}</td>
                    <td>{reasonText(d.theirs, d.theirReason)}</td>
                    <td>{reasonText(d.ours, d.ourReason, d.ourMessage)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      <Receivers when={when} />
    </main>
  );
}

/**
 * The secret URLs the other server's webhooks post to: made for a source (its address, as given
 * to the command), shown once, replaced or removed here.
 */
function Receivers({ when }: { when: (iso: string) => string }) {
  const { list, load, error, run } = useList(() => call<ShadowReceiver[]>('GET', '/shadow-receivers'));
  const [source, setSource] = useState('');
  const [shown, setShown] = useState<ShadowReceiver | null>(null);
  const made = (r: ShadowReceiver) => {
    setShown(r);
    setSource('');
    void load();
  };
  return (
    <section aria-labelledby="shadow-receivers">
      <h2 id="shadow-receivers">Follow their webhooks</h2>
      <p class="muted">
        With a receiver URL in the other server’s webhook settings (events of the category{' '}
        <code>resourceLog</code>), each decision there is compared as it happens; the command’s runs skip what
        arrived this way.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => made(await call<ShadowReceiver>('POST', '/shadow-receivers', { source })));
        }}
      >
        <label>
          Their server’s address (as given to <code>--url</code>)
          <input
            type="url"
            required
            placeholder="https://fabman.example"
            value={source}
            onInput={(e) => setSource(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary">
          Make receiver URL
        </button>
      </form>
      <Alert text={error} />
      {shown?.url && (
        <label>
          {`Receiver URL for ${shown.source} (shown only now: paste it into their webhook settings)`}
          <textarea class="command secret" readOnly rows={2} value={shown.url} />
        </label>
      )}
      {list && list.length > 0 && (
        <table class="list" aria-label="Webhook receivers">
          <thead>
            <tr>
              <th scope="col">Their server</th>
              <th scope="col">URL made</th>
              <th scope="col">Latest event</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <tr key={r.id}>
                <td>{r.source}</td>
                <td>{when(r.rotatedAt)}</td>
                <td>{r.lastEventAt ? when(r.lastEventAt) : 'none yet'}</td>
                <td>
                  <button
                    type="button"
                    onClick={() =>
                      confirm(`Make a new URL for ${r.source}? The current one stops working.`) &&
                      void run(async () =>
                        made(await call<ShadowReceiver>('POST', `/shadow-receivers/${r.id}/rotate`)),
                      )
                    }
                  >
                    New URL
                  </button>{' '}
                  <button
                    type="button"
                    class="danger"
                    onClick={() =>
                      confirm(`Remove the receiver for ${r.source}? Its URL stops working.`) &&
                      void run(async () => {
                        await call('DELETE', `/shadow-receivers/${r.id}`);
                        if (shown?.id === r.id) setShown(null);
                        await load();
                      })
                    }
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
