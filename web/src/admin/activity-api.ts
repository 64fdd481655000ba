/** The activity log's calls (GET /resource-logs with its filters), through the app's one `call`. */
import type { LiveLog, ResourceLogRecord, ResourceLogType } from '@makerspace/shared';
import { call, callWithTotal } from '../api';

/** A log as `resolve=member` answers it: the member as a small object (or null). */
export type ActivityLog = Omit<ResourceLogRecord, 'member'> & {
  member: null | number | { id: number; memberNumber?: string | null; firstName: string; lastName: string };
};

export interface ActivityFilters {
  resource?: number;
  member?: number;
  type?: ResourceLogType[];
  /** ISO times: the logs that overlap the period (the API's `from` and `until`). */
  from?: string;
  until?: string;
}

function query(f: ActivityFilters, offset: number, limit: number): string {
  const q = new URLSearchParams({ limit: String(limit), offset: String(offset), resolve: 'member' });
  if (f.resource) q.set('resource', String(f.resource));
  if (f.member) q.set('member', String(f.member));
  for (const t of f.type ?? []) q.append('type', t);
  if (f.from) q.set('from', f.from);
  if (f.until) q.set('until', f.until);
  return q.toString();
}

/** The member's name, when the log names one. */
export const memberName = (log: ActivityLog) =>
  log.member && typeof log.member === 'object' ? `${log.member.firstName} ${log.member.lastName}`.trim() : '';

/** A log as the live feed's lines take it (feed.ts words it). */
export function asLiveLog(log: ActivityLog): LiveLog {
  const m = log.member && typeof log.member === 'object' ? log.member : null;
  // The card a tap showed, as the live channel reads it from the log's metadata.
  const key = (log.metadata as { keys?: { type?: unknown; token?: unknown }[] } | null)?.keys?.[0];
  const card =
    typeof key?.type === 'string' && typeof key.token === 'string'
      ? ({ type: key.type, token: key.token } as LiveLog['card'])
      : null;
  return {
    id: log.id,
    resource: log.resource,
    type: log.type,
    reason: log.reason,
    member: m ? { id: m.id, firstName: m.firstName, lastName: m.lastName } : null,
    createdAt: log.createdAt,
    stoppedAt: log.stoppedAt,
    offline: log.offline,
    card,
  };
}

export const activityApi = {
  /** One page, newest first, with X-Total-Count. */
  page: (f: ActivityFilters, offset: number, limit: number) =>
    callWithTotal<ActivityLog[]>('GET', `/resource-logs?${query(f, offset, limit)}`),
  /** Every matching log (the CSV export), a thousand at a time. */
  async all(f: ActivityFilters): Promise<ActivityLog[]> {
    const out: ActivityLog[] = [];
    for (;;) {
      const page = await call<ActivityLog[]>('GET', `/resource-logs?${query(f, out.length, 1000)}`);
      out.push(...page);
      if (page.length < 1000) return out;
    }
  },
  /** The newest logs of the account: the dashboard's feed opens with them. */
  recent: (limit = 50) => call<ActivityLog[]>('GET', `/resource-logs?${query({}, 0, limit)}`),
};
