import type { ResourceLogType } from '@makerspace/shared';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { type ActivityFilters, type ActivityLog, activityApi } from './activity-api';
import { adminApi, type MemberRecord, type ResourceRecord } from './admin-api';
import { download } from './csv';
import './activity.css';
import { LogTable, logsCsv } from './log-table';
import { Pager } from './pager';
import { resourcesApi, type SpaceRecord } from './resources-api';
import { addDays, instant, wall } from './zoned';
import { t } from '../i18n/i18n';

const PAGE = 50;

/** Kinds of entry besides the outcome of a use (allowed or denied). */
const kinds = (): [string, string][] =>
  (
    [
      '',
      'access',
      'keyAssigned',
      'pairing',
      'offline',
      'reboot',
      'resourceDisabled',
      'resourceEnabled',
      'checkIn',
    ] as const
  ).map((kind) => [kind, t(`admin.activity.kind.${kind || 'any'}`)]);

interface Form {
  resource: string;
  member: string;
  outcome: '' | 'allowed' | 'denied';
  kind: string;
  /** datetime-local values (YYYY-MM-DDTHH:MM) in the space's zone. */
  from: string;
  until: string;
}

/** The filters the API takes, from the form (times from the space's wall clock). */
function filtersOf(f: Form, zone: string): ActivityFilters {
  const type: ResourceLogType[] = f.outcome
    ? [f.outcome]
    : f.kind === 'access'
      ? ['allowed', 'denied']
      : f.kind
        ? [f.kind as ResourceLogType]
        : [];
  const at = (local: string) =>
    local ? instant(local.slice(0, 10), local.slice(11, 16), zone).toISOString() : undefined;
  return {
    resource: f.resource ? Number(f.resource) : undefined,
    member: f.member ? Number(f.member) : undefined,
    type,
    from: at(f.from),
    until: at(f.until),
  };
}

/**
 * `/admin/activity`: every door's and machine's log in one list, newest first, filtered by
 * resource, member, type, outcome and period (in the space's time zone), with a CSV of every
 * matching entry. Answers "who used the laser last night".
 */
export function ActivityPage() {
  const [resources, setResources] = useState<ResourceRecord[]>([]);
  const [members, setMembers] = useState<MemberRecord[]>([]);
  const [spaces, setSpaces] = useState<SpaceRecord[]>([]);
  const [form, setForm] = useState<Form>(() => ({
    resource: new URLSearchParams(window.location.search).get('resource') ?? '',
    member: new URLSearchParams(window.location.search).get('member') ?? '',
    outcome: '',
    kind: '',
    from: '',
    until: '',
  }));
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ logs: ActivityLog[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [exporting, setExporting] = useState<string | null>(null);

  useEffect(() => {
    adminApi
      .resources()
      .then(setResources)
      .catch((e: ApiError) => setError(e.message));
    adminApi
      .memberPage('', 0, 1000)
      .then((p) => setMembers(p.body))
      .catch(() => {});
    resourcesApi
      .spaces()
      .then(setSpaces)
      .catch(() => {});
  }, []);

  const names = useMemo(() => new Map(resources.map((r) => [r.id, r.name])), [resources]);
  const chosen = resources.find((r) => String(r.id) === form.resource);
  const zone = spaces.find((s) => s.id === chosen?.space)?.timezone ?? spaces[0]?.timezone ?? 'UTC';
  const filters = filtersOf(form, zone);
  const key = JSON.stringify(filters);
  const badRange = !!filters.from && !!filters.until && filters.until <= filters.from;

  useEffect(() => {
    if (badRange) return;
    let current = true;
    const t = setTimeout(() => {
      activityApi
        .page(filters, offset, PAGE)
        .then((p) => {
          if (!current) return;
          setPage({ logs: p.body, total: p.total ?? p.body.length });
          setError(null);
        })
        .catch((e: ApiError) => current && setError(e.message));
    }, 150);
    return () => {
      current = false;
      clearTimeout(t);
    };
  }, [key, offset]);

  const set = (k: keyof Form) => (value: string) => {
    setOffset(0);
    setExporting(null);
    setForm((f) => ({ ...f, [k]: value }));
  };
  const select = (label: string, k: keyof Form, options: [string, string][], disabled = false) => (
    <label>
      {label}
      <select
        aria-label={label}
        value={form[k]}
        disabled={disabled}
        onChange={(e) => set(k)((e.target as HTMLSelectElement).value)}
      >
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  const datetime = (label: string, k: 'from' | 'until') => (
    <label>
      {label}
      <input
        type="datetime-local"
        value={form[k]}
        onInput={(e) => set(k)((e.target as HTMLInputElement).value)}
      />
    </label>
  );
  /** Yesterday 18:00 until today 08:00, in the space's zone. */
  function lastNight() {
    const today = wall(new Date(), zone).date;
    setOffset(0);
    setForm((f) => ({ ...f, from: `${addDays(today, -1)}T18:00`, until: `${today}T08:00` }));
  }

  async function exportCsv() {
    setExporting(t('admin.activity.reading'));
    try {
      const all = await activityApi.all(filters);
      const range = [form.from, form.until]
        .filter(Boolean)
        .map((d) => d.replace(':', ''))
        .join('_');
      download(`activity${range ? `-${range}` : ''}.csv`, logsCsv(all, zone, names));
      setExporting(t('admin.activity.exported', { count: all.length }));
    } catch (e) {
      setExporting(t('admin.activity.exportFailed', { reason: (e as ApiError).message }));
    }
  }

  return (
    <main class="admin">
      <h1>{t('admin.activity.activity')}</h1>
      <p class="muted">{t('admin.activity.intro', { zone })}</p>
      <form
        class="filters activity-filters"
        aria-label={t('admin.activity.filterTheActivity')}
        onSubmit={(e) => e.preventDefault()}
      >
        {select(t('admin.log_table.resource'), 'resource', [
          ['', t('admin.resource_log.allResources')],
          ...resources.map((r): [string, string] => [String(r.id), r.name]),
        ])}
        {select(t('admin.log_table.member'), 'member', [
          ['', t('admin.activity.allMembers')],
          ...members.map((m): [string, string] => [String(m.id), `${m.firstName} ${m.lastName}`.trim()]),
        ])}
        {select(t('admin.activity.outcome'), 'outcome', [
          ['', t('admin.activity.anyOutcome')],
          ['allowed', t('log.type.allowed')],
          ['denied', t('log.type.denied')],
        ])}
        {select(t('admin.activity.type'), 'kind', kinds(), form.outcome !== '')}
        {datetime(t('admin.activity.from'), 'from')}
        {datetime(t('admin.activity.until'), 'until')}
        <div class="actions">
          <button type="button" class="secondary" onClick={lastNight}>
            {t('admin.activity.lastNight')}
          </button>
          <button
            type="button"
            class="secondary"
            disabled={!form.from && !form.until}
            onClick={() => {
              setOffset(0);
              setForm((f) => ({ ...f, from: '', until: '' }));
            }}
          >
            {t('admin.activity.anyTime')}
          </button>
          <button type="button" class="secondary" disabled={badRange} onClick={() => void exportCsv()}>
            {t('admin.activity.exportActivityAsCsv')}
          </button>
        </div>
      </form>
      {exporting && (
        <p role="status" class="notice">
          {exporting}
        </p>
      )}
      {badRange && (
        <p role="alert" class="error">
          {t('admin.activity.untilMustBeLater')}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {page === null && !error && <p role="status">{t('admin.activity.loading')}</p>}
      {page && page.total === 0 && <p class="muted">{t('admin.activity.nothingMatchesTheseFilters')}</p>}
      {page && page.total > 0 && (
        <>
          <p class="muted" data-testid="activity-count">
            {t('admin.activity.entries', { count: page.total })}
          </p>
          <LogTable label={t('admin.activity.activity')} logs={page.logs} zone={zone} names={names} />
          <Pager
            label={t('admin.activity.pagesOfTheActivity')}
            offset={offset}
            size={PAGE}
            total={page.total}
            onOffset={setOffset}
          />
        </>
      )}
    </main>
  );
}
