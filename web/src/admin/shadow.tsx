import type { ShadowReceiver, ShadowReport } from '@makerspace/shared';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { locale, rich, slot, t, tOr } from '../i18n/i18n';
import { Alert, errorText, useList } from './form-parts';

// Commands, options and names of the other server's settings: the same in every language.
const command = 'makerspace-hub shadow --url … --token … --every 15';
const category = 'resourceLog';
const urlOption = '--url';
const exampleUrl = 'https://fabman.example';

const reasonText = (decision: string, reason: string | null, message?: string | null) =>
  `${tOr(`admin.shadow.decision.${decision}`, decision)}${reason ? ` (${reason})` : ''}${message && decision === 'denied' ? `: ${message}` : ''}`;

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
  const percent = new Intl.NumberFormat(locale(), {
    style: 'percent',
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
  });
  const when = (iso: string) =>
    new Date(iso).toLocaleString(locale(), { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
  return (
    <main class="admin">
      <h1>{t('admin.shadow.title')}</h1>
      <p class="muted">
        {rich(t('admin.shadow.intro', { command: slot('command') }), {
          command: <code>{command}</code>,
        })}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {report && report.resources.length === 0 && <p>{t('admin.shadow.nothing')}</p>}
      {report && report.resources.length > 0 && (
        <>
          <table class="list" aria-label={t('admin.shadow.perResource')}>
            <thead>
              <tr>
                <th scope="col">{t('admin.shadow.resource')}</th>
                <th scope="col">{t('admin.shadow.decisions')}</th>
                <th scope="col">{t('admin.shadow.agree')}</th>
                <th scope="col">{t('admin.shadow.latest')}</th>
              </tr>
            </thead>
            <tbody>
              {report.resources.map((r) => (
                <tr key={`${r.source} ${r.remoteResource}`}>
                  <td>{r.resourceName ?? t('admin.shadow.noneHere', { id: r.remoteResource })}</td>
                  <td>{r.compared}</td>
                  <td>{`${r.agreed} (${r.compared ? percent.format(r.agreed / r.compared) : '-'})`}</td>
                  <td>{r.latest ? when(r.latest) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>{t('admin.shadow.disagreements')}</h2>
          {report.disagreements.length === 0 ? (
            <p>{t('admin.shadow.allAgree')}</p>
          ) : (
            <table class="list" aria-label={t('admin.shadow.disagreements')}>
              <thead>
                <tr>
                  <th scope="col">{t('admin.shadow.when', { zone })}</th>
                  <th scope="col">{t('admin.shadow.member')}</th>
                  <th scope="col">{t('admin.shadow.resource')}</th>
                  <th scope="col">{t('admin.shadow.theirs')}</th>
                  <th scope="col">{t('admin.shadow.ours')}</th>
                </tr>
              </thead>
              <tbody>
                {report.disagreements.map((d) => (
                  <tr key={`${d.source} ${d.remoteLog}`}>
                    <td>{when(d.at)}</td>
                    <td>
                      {d.memberName ??
                        (d.remoteMember
                          ? t('admin.shadow.theirMember', { id: d.remoteMember })
                          : t('admin.shadow.noMember'))}
                    </td>
                    <td>{d.resourceName ?? t('admin.shadow.theirResource', { id: d.remoteResource })}</td>
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
      <h2 id="shadow-receivers">{t('admin.shadow.follow')}</h2>
      <p class="muted">
        {rich(t('admin.shadow.followHint', { category: slot('category') }), {
          category: <code>{category}</code>,
        })}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => made(await call<ShadowReceiver>('POST', '/shadow-receivers', { source })));
        }}
      >
        <label>
          {rich(t('admin.shadow.address', { option: slot('option') }), { option: <code>{urlOption}</code> })}
          <input
            type="url"
            required
            placeholder={exampleUrl}
            value={source}
            onInput={(e) => setSource(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary">
          {t('admin.shadow.makeUrl')}
        </button>
      </form>
      <Alert text={error} />
      {shown?.url && (
        <label>
          {t('admin.shadow.receiverFor', { source: shown.source })}
          <textarea class="command secret" readOnly rows={2} value={shown.url} />
        </label>
      )}
      {list && list.length > 0 && (
        <table class="list" aria-label={t('admin.shadow.receivers')}>
          <thead>
            <tr>
              <th scope="col">{t('admin.shadow.theirServer')}</th>
              <th scope="col">{t('admin.shadow.urlMade')}</th>
              <th scope="col">{t('admin.shadow.latestEvent')}</th>
              <th scope="col">{t('admin.shadow.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <tr key={r.id}>
                <td>{r.source}</td>
                <td>{when(r.rotatedAt)}</td>
                <td>{r.lastEventAt ? when(r.lastEventAt) : t('admin.shadow.noneYet')}</td>
                <td>
                  <button
                    type="button"
                    onClick={() =>
                      confirm(t('admin.shadow.confirmNew', { source: r.source })) &&
                      void run(async () =>
                        made(await call<ShadowReceiver>('POST', `/shadow-receivers/${r.id}/rotate`)),
                      )
                    }
                  >
                    {t('admin.shadow.newUrl')}
                  </button>{' '}
                  <button
                    type="button"
                    class="danger"
                    onClick={() =>
                      confirm(t('admin.shadow.confirmRemove', { source: r.source })) &&
                      void run(async () => {
                        await call('DELETE', `/shadow-receivers/${r.id}`);
                        if (shown?.id === r.id) setShown(null);
                        await load();
                      })
                    }
                  >
                    {t('admin.shadow.remove')}
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
