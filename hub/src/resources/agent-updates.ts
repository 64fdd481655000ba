import { randomUUID } from 'node:crypto';
import type {
  AgentReleaseInfo,
  AgentUpdateRecord,
  AgentUpdatesStarted,
  UpdateProgress,
} from '@makerspace/shared';
import type { HubContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import type { Caller } from '../kernel/caller.js';
import {
  type AgentRelease,
  AgentReleases,
  compareVersions,
  defaultReleaseDir,
  releasePublicKey,
} from './agent-release.js';
import {
  type AgentUpdateRow,
  agentUpdatesOf,
  bridgesForUpdates,
  putAgentUpdate,
  setAgentUpdateStep,
} from './agent-updates.repository.js';

/*
 * Agent updates (docs/OPERATIONS.md, "Updating agents"): an admin starts them, the hub tells
 * each agent over MQTT (`update`), the agent downloads the signed bundle from the bridge API and
 * reports its steps (`update/progress`), which land here and on the admin dashboard.
 */

/** The path of the bundle in the bridge API (bridge API key as Bearer token). */
export const RELEASE_PATH = '/api/v1/bridge/agent-release';

const releases = new WeakMap<object, AgentReleases>();

/** The context's release reader (one per hub, so the signature is computed once per bundle). */
export function agentReleases(ctx: HubContext): AgentReleases {
  let found = releases.get(ctx);
  if (!found) {
    found = new AgentReleases(ctx.agentReleaseDir ?? defaultReleaseDir, ctx.db, ctx.tokens);
    releases.set(ctx, found);
  }
  return found;
}

export async function releaseInfo(ctx: HubContext): Promise<AgentReleaseInfo> {
  const release = await agentReleases(ctx).current();
  return {
    available: release !== null,
    version: release?.version ?? null,
    size: release?.size ?? null,
    sha256: release?.sha256 ?? null,
    publicKey: await releasePublicKey(ctx.db, ctx.tokens),
  };
}

async function requireRelease(ctx: HubContext): Promise<AgentRelease> {
  const release = await agentReleases(ctx).current();
  if (!release)
    throw conflict(
      'The hub has no agent release to offer: build one with `npm run build` (agent/dist-release) or set HUB_AGENT_RELEASE_DIR',
    );
  return release;
}

/** An agent that names no version (or not a version number) is older than any release. */
const isNewer = (release: AgentRelease, agentVersion: string | null) =>
  agentVersion === null ||
  !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(agentVersion) ||
  compareVersions(release.version, agentVersion) > 0;

/** An update that has not reported for this long is taken as lost: another may start. */
const UPDATE_QUIET_MS = 10 * 60_000;

/**
 * An update as the dashboard shows it. One that has not ended and not reported for
 * UPDATE_QUIET_MS (its agent died or lost its connection mid-way) shows as failed, as the hub
 * treats it: another may start.
 */
function stateOf(row: AgentUpdateRow | undefined, now: number): AgentUpdateRecord['update'] {
  if (!row) return null;
  const lost = isLost(row, now);
  return {
    id: row.updateId,
    version: row.version,
    fromVersion: row.fromVersion,
    step: lost ? 'failed' : (row.step as NonNullable<AgentUpdateRecord['update']>['step']),
    error: lost
      ? `No word from the agent for ${UPDATE_QUIET_MS / 60_000} minutes after "${row.step}": the update was given up`
      : row.error,
    startedAt: row.startedAt,
    updatedAt: row.updatedAt,
  };
}

const ended = (step: string) => step === 'connected' || step === 'failed' || step === 'rolledBack';

/** Not ended, and no report for UPDATE_QUIET_MS: its agent died or lost its connection mid-way. */
const isLost = (row: AgentUpdateRow, now: number) =>
  !ended(row.step) && now - Date.parse(row.updatedAt) >= UPDATE_QUIET_MS;

/** Every bridge of the caller's account with its agent's version and last update. */
export async function listAgentUpdates(ctx: HubContext, caller: Caller): Promise<AgentUpdateRecord[]> {
  const release = await agentReleases(ctx).current();
  const bridges = await bridgesForUpdates(ctx.db, caller.accountId);
  const now = ctx.clock.now().getTime();
  const updates = new Map(
    (
      await agentUpdatesOf(
        ctx.db,
        bridges.map((b) => b.resource),
      )
    ).map((u) => [u.resource, u]),
  );
  return bridges.map((b) => ({
    resource: b.resource,
    name: b.name,
    online: b.offline === 0 && ctx.bridges.isOnline(b.resource),
    agentVersion: b.agentVersion,
    updateAvailable: release !== null && isNewer(release, b.agentVersion),
    update: stateOf(updates.get(b.resource), now),
  }));
}

type Bridge = Awaited<ReturnType<typeof bridgesForUpdates>>[number];

/** The bridge's update under way (not ended, heard from lately), or null. */
async function updateUnderWay(ctx: HubContext, resource: number): Promise<AgentUpdateRow | null> {
  const [row] = await agentUpdatesOf(ctx.db, [resource]);
  if (!row || ended(row.step) || isLost(row, ctx.clock.now().getTime())) return null;
  return row;
}

/** Records the update and sends it to the agent. */
async function sendUpdate(ctx: HubContext, caller: Caller, bridge: Bridge, release: AgentRelease) {
  const at = ctx.clock.now().toISOString();
  const id = randomUUID();
  await putAgentUpdate(ctx.db, {
    resource: bridge.resource,
    account: bridge.account,
    updateId: id,
    version: release.version,
    fromVersion: bridge.agentVersion,
    step: 'requested',
    error: null,
    startedBy: caller.memberId,
    startedAt: at,
    updatedAt: at,
  });
  await ctx.bridges.publishUpdate(bridge.resource, {
    id,
    version: release.version,
    sha256: release.sha256,
    size: release.size,
    signature: release.signature,
    url: `${ctx.linkBase}${RELEASE_PATH}`,
  });
  ctx.signals.changed(bridge.resource);
  ctx.logger.info(
    { resourceId: bridge.resource, version: release.version, from: bridge.agentVersion },
    'agent update started',
  );
}

/** One bridge: 404 without one, 409 when it is offline or already runs the release (or newer). */
export async function startAgentUpdate(
  ctx: HubContext,
  caller: Caller,
  resourceId: number,
): Promise<AgentUpdateRecord> {
  const [bridge] = await bridgesForUpdates(ctx.db, caller.superuser ? null : caller.accountId, [resourceId]);
  if (!bridge) throw notFound('Bridge');
  const release = await requireRelease(ctx);
  if (!ctx.bridges.isOnline(bridge.resource))
    throw conflict('The bridge is offline: its agent can be updated once it is connected');
  if (!isNewer(release, bridge.agentVersion))
    throw conflict(`The agent already runs ${bridge.agentVersion}; the hub offers ${release.version}`);
  const running = await updateUnderWay(ctx, bridge.resource);
  if (running)
    throw conflict(`An update to ${running.version} is under way (${running.step}): wait for its end`);
  await sendUpdate(ctx, caller, bridge, release);
  return (await listAgentUpdates(ctx, { ...caller, accountId: bridge.account })).find(
    (r) => r.resource === resourceId,
  )!;
}

/** Several bridges (all of the account when none are named): each online one with an older agent. */
export async function startAgentUpdates(
  ctx: HubContext,
  caller: Caller,
  resources?: number[],
): Promise<AgentUpdatesStarted> {
  const release = await requireRelease(ctx);
  const bridges = await bridgesForUpdates(ctx.db, caller.accountId, resources);
  const outcomes: AgentUpdatesStarted['bridges'] = [];
  for (const bridge of bridges) {
    if (!isNewer(release, bridge.agentVersion))
      outcomes.push({ resource: bridge.resource, outcome: 'upToDate' });
    else if (!ctx.bridges.isOnline(bridge.resource))
      outcomes.push({ resource: bridge.resource, outcome: 'offline' });
    else if (await updateUnderWay(ctx, bridge.resource))
      outcomes.push({ resource: bridge.resource, outcome: 'updating' });
    else {
      await sendUpdate(ctx, caller, bridge, release);
      outcomes.push({ resource: bridge.resource, outcome: 'started' });
    }
  }
  return { version: release.version, bridges: outcomes };
}

/** An agent's `update/progress`: the step of the update it names (a report on an older one is dropped). */
export async function recordUpdateProgress(
  ctx: HubContext,
  resourceId: number,
  progress: UpdateProgress,
): Promise<void> {
  const stored = await setAgentUpdateStep(ctx.db, resourceId, progress.id, {
    step: progress.step,
    error: progress.error ?? null,
    updatedAt: ctx.clock.now().toISOString(),
  });
  const log = progress.step === 'failed' || progress.step === 'rolledBack' ? 'warn' : 'info';
  ctx.logger[log](
    {
      resourceId,
      version: progress.version,
      step: progress.step,
      running: progress.runningVersion,
      ...(progress.error ? { error: progress.error } : {}),
    },
    stored ? 'agent update progress' : 'progress of an unknown agent update dropped',
  );
  if (stored) ctx.signals.changed(resourceId);
}
