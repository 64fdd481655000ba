import type { ResourceStatus } from '@makerspace/shared';

import type { StatusRow, Viewer } from './bridges.repository.js';
import { parseStoredInputs } from './bridge-inputs.js';

export type { StatusRow, Viewer };
export { readStatuses, readVisibleStatuses } from './bridges.repository.js';

/** May the caller see this resource's state? The same rule as GET /resources (visibleResources). */
export function seesStatus(viewer: Viewer, row: Pick<StatusRow, 'account' | 'visibleForMembers'>): boolean {
  if (!viewer.superuser && row.account !== viewer.accountId) return false;
  return viewer.admin || Number(row.visibleForMembers) === 1;
}

/** The status as `viewer` may see it: who runs a session is shown to admins and to that member. */
export function statusFor(viewer: Pick<Viewer, 'memberId' | 'admin'>, row: StatusRow): ResourceStatus {
  const hasBridge = Boolean(Number(row.hasBridge));
  const mine = row.sessionMember !== null && row.sessionMember === viewer.memberId;
  const online = hasBridge && Number(row.offline) === 0;
  // What an offline agent last said is stale: shown as nothing.
  const reported = online ? parseStoredInputs(row.inputs) : null;
  const warning = reported?.idleWarning;
  return {
    resource: row.resource,
    bridge: hasBridge,
    online,
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
    inputs: (reported?.inputs ?? []).map((i) => ({ ...i, heldOpen: i.heldOpen ?? false })),
    // A warning for the session that runs now (not one that has ended since).
    idleWarning:
      warning && row.sessionId !== null && warning.sessionId === String(row.sessionId)
        ? { cutAt: warning.cutAt }
        : null,
  };
}
