import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { type ActivityLog, activityApi } from './activity-api';
import './activity.css';
import type { ResourceRecord } from './admin-api';
import { LogTable } from './log-table';
import { Pager } from './pager';
import { resourcesApi } from './resources-api';
import { t } from '../i18n/i18n';

const PAGE = 25;

/** `/admin/resources/{id}/log`: one door's or machine's history, newest first, a page at a time. */
export function ResourceLogPage({ id }: { id: number }) {
  const [resource, setResource] = useState<ResourceRecord | null>(null);
  const [zone, setZone] = useState('UTC');
  const [page, setPage] = useState<{ logs: ActivityLog[]; total: number } | null>(null);
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    Promise.all([resourcesApi.resource(id), resourcesApi.spaces()])
      .then(([r, spaces]) => {
        setResource(r);
        setZone(spaces.find((s) => s.id === r.space)?.timezone ?? 'UTC');
      })
      .catch((e: ApiError) => setError(e.message));
  }, [id]);
  useEffect(() => {
    let current = true;
    activityApi
      .page({ resource: id }, offset, PAGE)
      .then((p) => {
        if (current) setPage({ logs: p.body, total: p.total ?? p.body.length });
      })
      .catch((e: ApiError) => current && setError(e.message));
    return () => {
      current = false;
    };
  }, [id, offset]);

  const name = resource?.name ?? t('common.resource', { id });
  return (
    <main class="admin">
      <p class="no-print">
        <a href="/admin/resources">{t('admin.resource_log.allResources')}</a> ·{' '}
        <a href={`/admin/activity?resource=${id}`}>{t('admin.resource_log.activityOf', { name })}</a>
      </p>
      <h1>{t('admin.resource_log.logOf', { name })}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {page === null && !error && <p role="status">{t('admin.resource_log.loading')}</p>}
      {page && page.total === 0 && <p class="muted">{t('admin.resource_log.nothingYet', { name })}</p>}
      {page && page.total > 0 && (
        <>
          <p class="muted">{t('admin.resource_log.entries', { count: page.total, zone })}</p>
          <LogTable
            label={t('admin.resource_log.logOf', { name })}
            logs={page.logs}
            zone={zone}
            names={new Map([[id, name]])}
            showResource={false}
          />
          <Pager
            label={t('admin.resource_log.pagesOf', { name })}
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
