import type { ResourceStatus } from '@makerspace/shared';
import type { FastReads } from '../db/fast-reads.js';

/** Who looks at a resource's state: the caller's account, member and role. */
export interface Viewer {
  accountId: number;
  memberId: number;
  superuser: boolean;
  /** Admin or owner of the account (or superuser). */
  admin: boolean;
}

/** A resource's live state as stored, before it is shaped for one caller. */
export interface StatusRow {
  resource: number;
  account: number;
  visibleForMembers: number;
  hasBridge: number | boolean | null;
  offline: number | null;
  inUse: number | null;
  relaySince: string | null;
  lastSeenAt: string | null;
  agentVersion: string | null;
  duplicateDeviceAt: string | null;
  duplicateDeviceAddresses: string | null;
  sessionId: number | null;
  sessionSince: string | null;
  sessionMember: number | null;
  firstName: string | null;
  lastName: string | null;
}

// The running session is the newest allowed log that has not stopped (machines; a door's log
// stops at once).
const STATUS_SQL = `select "r"."id" as "resource", "r"."account", "r"."visibleForMembers",
  "b"."resource" is not null as "hasBridge", "b"."offline", "b"."inUse", "b"."relaySince", "b"."lastSeenAt", "b"."agentVersion",
  "b"."duplicateDeviceAt", "b"."duplicateDeviceAddresses",
  "l"."id" as "sessionId", "l"."createdAt" as "sessionSince", "l"."member" as "sessionMember",
  "m"."firstName", "m"."lastName"
from "resources" as "r"
left join "bridges" as "b" on "b"."resource" = "r"."id"
left join "resource_logs" as "l" on "l"."id" = (
  select max("x"."id") from "resource_logs" as "x"
  where "x"."resource" = "r"."id" and "x"."type" = 'allowed' and "x"."stoppedAt" is null)
left join "members" as "m" on "m"."id" = "l"."member"`;

/**
 * The stored state of the given resources. The list is padded to a power of two (repeating its
 * last id), so the prepared statements kept for this query stay a handful however many
 * resources change at once, not one per list length.
 */
export function readStatuses(reads: FastReads, resourceIds: number[]): Promise<StatusRow[]> {
  if (resourceIds.length === 0) return Promise.resolve([]);
  const ids = [...resourceIds];
  const size = 2 ** Math.ceil(Math.log2(ids.length));
  while (ids.length < size) ids.push(resourceIds[resourceIds.length - 1]);
  return reads.rows<StatusRow>(`${STATUS_SQL} where "r"."id" in (${ids.map(() => '?').join(', ')})`, ids);
}

/** The stored state of every resource the caller sees (admins: all of the account's). */
export function readVisibleStatuses(reads: FastReads, viewer: Viewer): Promise<StatusRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (!viewer.superuser) {
    where.push('"r"."account" = ?');
    params.push(viewer.accountId);
  }
  if (!viewer.admin) where.push('"r"."visibleForMembers" = 1');
  const clause = where.length ? ` where ${where.join(' and ')}` : '';
  return reads.rows<StatusRow>(`${STATUS_SQL}${clause} order by "r"."id"`, params);
}

/** May the caller see this resource's state? The same rule as GET /resources (visibleResources). */
export function seesStatus(viewer: Viewer, row: Pick<StatusRow, 'account' | 'visibleForMembers'>): boolean {
  if (!viewer.superuser && row.account !== viewer.accountId) return false;
  return viewer.admin || Number(row.visibleForMembers) === 1;
}

/** The status as `viewer` may see it: who runs a session is shown to admins and to that member. */
export function statusFor(viewer: Pick<Viewer, 'memberId' | 'admin'>, row: StatusRow): ResourceStatus {
  const hasBridge = Boolean(Number(row.hasBridge));
  const mine = row.sessionMember !== null && row.sessionMember === viewer.memberId;
  return {
    resource: row.resource,
    bridge: hasBridge,
    online: hasBridge && Number(row.offline) === 0,
    relay: hasBridge && row.inUse !== null ? (Number(row.inUse) === 1 ? 'on' : 'off') : null,
    relaySince: row.relaySince,
    lastSeenAt: row.lastSeenAt,
    agentVersion: row.agentVersion,
    // Where the clones are is for admins only.
    duplicateDeviceAt: viewer.admin ? row.duplicateDeviceAt : null,
    duplicateDeviceAddresses:
      viewer.admin && row.duplicateDeviceAddresses
        ? (JSON.parse(row.duplicateDeviceAddresses) as string[])
        : [],
    session:
      row.sessionId === null || row.sessionSince === null
        ? null
        : {
            id: row.sessionId,
            since: row.sessionSince,
            mine,
            member:
              (mine || viewer.admin) && row.sessionMember !== null
                ? { id: row.sessionMember, firstName: row.firstName ?? '', lastName: row.lastName ?? '' }
                : null,
          },
  };
}
