import { duration } from '../format';
import { type ActivityLog, asLiveLog, memberName } from './activity-api';
import { type Cell, toCsv } from './csv';
import { logText } from './feed';
import { wall } from './zoned';
import { t } from '../i18n/i18n';

/** "2026-03-10 21:05" in the space's zone. */
export const local = (iso: string, zone: string) => {
  const w = wall(iso, zone);
  return `${w.date} ${w.time}`;
};

/** How long a session ran (or runs); doors and refusals have none worth showing. */
function runTime(log: ActivityLog, now: number): number | null {
  if (log.type !== 'allowed') return null;
  const end = log.stoppedAt ? Date.parse(log.stoppedAt) : now;
  return Math.max(0, (end - Date.parse(log.createdAt)) / 1000);
}

/**
 * Logs as a table, newest first: start and end in the space's zone, how long, the resource, the
 * member, and what happened in words (the dashboard feed's words).
 */
export function LogTable(props: {
  label: string;
  logs: ActivityLog[];
  zone: string;
  names: Map<number, string>;
  /** The resource's own log page leaves its column out. */
  showResource?: boolean;
}) {
  const now = Date.now();
  const showResource = props.showResource ?? true;
  return (
    <table class="list log-table" aria-label={props.label}>
      <thead>
        <tr>
          <th scope="col">{t('admin.log_table.start')}</th>
          <th scope="col">{t('admin.log_table.end')}</th>
          <th scope="col">{t('admin.log_table.duration')}</th>
          {showResource && <th scope="col">{t('admin.log_table.resource')}</th>}
          <th scope="col">{t('admin.log_table.member')}</th>
          <th scope="col">{t('admin.log_table.what')}</th>
        </tr>
      </thead>
      <tbody>
        {props.logs.map((log) => {
          const seconds = runTime(log, now);
          return (
            <tr key={log.id} class={log.type === 'denied' ? 'bad' : ''}>
              <td data-label={t('admin.log_table.start')}>
                <time dateTime={log.createdAt}>{local(log.createdAt, props.zone)}</time>
              </td>
              <td data-label={t('admin.log_table.end')}>
                {log.stoppedAt ? (
                  <time dateTime={log.stoppedAt}>{local(log.stoppedAt, props.zone)}</time>
                ) : log.type === 'allowed' ? (
                  t('admin.log_table.running')
                ) : (
                  ''
                )}
              </td>
              <td data-label={t('admin.log_table.duration')}>{seconds === null ? '' : duration(seconds)}</td>
              {showResource && (
                <td data-label={t('admin.log_table.resource')}>
                  {props.names.get(log.resource) ?? t('common.resource', { id: log.resource })}
                </td>
              )}
              <td data-label={t('admin.log_table.member')}>{memberName(log)}</td>
              <td data-label={t('admin.log_table.what')}>
                {logText(asLiveLog(log))}
                {log.offline ? t('admin.log_table.offlineDecision') : ''}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const csvHead = [
  'id',
  'start',
  'end',
  'startLocal',
  'endLocal',
  'durationSeconds',
  'resource',
  'resourceName',
  'member',
  'memberName',
  'type',
  'reason',
  'offline',
];

/** The logs as CSV: UTC and the space's local times, so a spreadsheet can sort either. */
export function logsCsv(logs: ActivityLog[], zone: string, names: Map<number, string>): string {
  const now = Date.now();
  return toCsv(
    csvHead,
    logs.map((log): Cell[] => {
      const seconds = runTime(log, now);
      const member = log.member && typeof log.member === 'object' ? log.member.id : log.member;
      return [
        log.id,
        log.createdAt,
        log.stoppedAt,
        local(log.createdAt, zone),
        log.stoppedAt ? local(log.stoppedAt, zone) : '',
        seconds === null || !log.stoppedAt ? null : Math.round(seconds),
        log.resource,
        names.get(log.resource) ?? '',
        member,
        memberName(log),
        log.type,
        log.reason,
        log.offline ? 'yes' : '',
      ];
    }),
  );
}
