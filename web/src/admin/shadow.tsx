import type { ShadowReport } from '@makerspace/shared';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { errorText } from './form-parts';

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
        <code>makerspace-hub shadow --url … --token … --every 15</code> on the hub’s server to fill it; fix
        what disagrees, then move the doors one at a time.
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
    </main>
  );
}
