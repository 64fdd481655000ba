import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { dateTime } from '../format';
import { problemApi, type ProblemReportRecord } from '../problem-api';
import './problem-reports.css';
import { t } from '../i18n/i18n';

const who = (r: ProblemReportRecord) => {
  const m = r._embedded.member;
  return m ? `${m.firstName} ${m.lastName ?? ''}`.trim() : t('problem.formerMember');
};

/**
 * Open problem reports, newest first (all of them on the dashboard, one resource's on its page),
 * each with "Resolve" and a note of what was done. Resolving an unsafe report puts its machine
 * back into use if the report locked it (docs/DECISIONS.md, "Problem reports"); `onResolved`
 * lets the page reload what that changed.
 */
export function OpenProblemReports(props: { resource?: number; onResolved?: () => unknown }) {
  const [reports, setReports] = useState<ProblemReportRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = () =>
    problemApi
      .open(props.resource)
      .then(({ body }) => {
        setReports(body);
        setError(null);
      })
      .catch((e: ApiError) => setError(e.message));
  useEffect(() => {
    void load();
    // New reports arrive from members' phones: asked again every half minute.
    const t = setInterval(() => void load(), 30_000);
    return () => clearInterval(t);
  }, [props.resource]);

  const resolved = (r: ProblemReportRecord, after: ProblemReportRecord) => {
    setNotice(
      `${t('admin.problem_reports.resolved', { id: r.id, name: r._embedded.resource.name })}${after.unlockedResource ? t('admin.problem_reports.inUseAgain', { name: r._embedded.resource.name }) : ''}`,
    );
    void load();
    void props.onResolved?.();
  };

  return (
    <section aria-labelledby={`problems-h-${props.resource ?? 'all'}`} class="problem-reports">
      <h2 id={`problems-h-${props.resource ?? 'all'}`}>
        {props.resource
          ? t('admin.problem_reports.openProblemReports')
          : t('admin.problem_reports.problemReports')}
      </h2>
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
      {reports === null && !error && <p role="status">{t('admin.problem_reports.loading')}</p>}
      <ul class="rows" aria-label={t('admin.problem_reports.openProblemReports')}>
        {reports?.length === 0 && <li class="muted">{t('admin.problem_reports.noOpenProblemReports')}</li>}
        {reports?.map((r) => (
          <ReportRow
            key={r.id}
            r={r}
            showResource={!props.resource}
            onResolved={(after) => resolved(r, after)}
          />
        ))}
      </ul>
    </section>
  );
}

function ReportRow(props: {
  r: ProblemReportRecord;
  showResource: boolean;
  onResolved: (after: ProblemReportRecord) => void;
}) {
  const { r } = props;
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function resolve(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onResolved(await problemApi.resolve(r.id, note.trim()));
    } catch (err) {
      setError((err as ApiError).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <li class={`problem-report ${r.severity}`} aria-label={t('problem.reportN', { id: r.id })}>
      <div class="problem-head">
        {props.showResource && <strong>{r._embedded.resource.name}</strong>}
        <span class={`badge ${r.severity === 'unsafe' ? 'bad' : 'busy'}`}>
          {r.severity === 'unsafe' ? t('problem.severityUnsafe') : t('problem.severityInfo')}
        </span>
        {r.lockedResource && <span class="badge bad">{t('admin.problem_reports.outOfUse')}</span>}
      </div>
      <p class="problem-text">{r.description}</p>
      <p class="muted">
        {t('admin.problem_reports.reportedBy', { id: r.id, by: who(r) })}
        <time dateTime={r.createdAt}>{dateTime(r.createdAt)}</time>
      </p>
      {r.photo && (
        <a href={problemApi.photoUrl(r.id)} target="_blank" rel="noreferrer">
          <img
            class="problem-photo"
            src={`${problemApi.photoUrl(r.id)}?v=${encodeURIComponent(r.updatedAt)}`}
            alt={t('admin.problem_reports.photoAlt', { id: r.id, text: r.description.slice(0, 80) })}
            loading="lazy"
          />
        </a>
      )}
      <form class="actions" onSubmit={resolve} aria-label={t('problem.resolveN', { id: r.id })}>
        <label class="grow">
          {t('problem.whatDone')}
          <input
            required
            maxLength={4000}
            value={note}
            onInput={(e) => setNote((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="secondary" disabled={busy || !note.trim()}>
          {t('admin.problem_reports.resolve')}
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </li>
  );
}
