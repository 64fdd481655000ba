import { type BridgeConfig, offlineKeySecret } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import { OfflineKeyFacts, offlineKeysFor } from './offline-keys.js';
import { bridgeConfigRow, bumpConfigVersions } from './bridges.repository.js';
import { spaceZones } from './resources.repository.js';
import { type PeriodicCheck, periodicCheck } from '../periodic.js';
import { localDate } from '../kernel/zoned-time.js';

/** The retained config a bridge works from, also while the hub is away (DESIGN 7). */
export async function bridgeConfigFor(
  ctx: HubContext,
  resourceId: number,
  /** Shared by the bridges of one refresh (keys/offline-keys.ts). */
  facts?: OfflineKeyFacts,
): Promise<BridgeConfig | null> {
  const row = await bridgeConfigRow(ctx.db, resourceId);
  if (!row) return null;
  const secret = offlineKeySecret(ctx.tokens.open(row.apiKeyEncrypted));
  const offlineKeys = await offlineKeysFor(
    ctx.db,
    { id: resourceId, ...row },
    ctx.clock.now(),
    secret,
    facts,
  );
  const controlType =
    (['machine', 'door', 'pos', 'other'] as const).find((t) => t === row.controlType) ?? 'other';
  // A door held unlocked (presence/): its agent holds the relay until the window's end, in the
  // bridge's clock, also across a restart and while the hub is away.
  const window =
    controlType === 'door' && row.unlockMode !== 'normal' && row.state === 'active'
      ? await ctx.presence.doorWindow(
          ctx.db,
          { id: resourceId, account: row.account, space: row.space, controlType, unlockMode: row.unlockMode },
          ctx.clock.now(),
        )
      : null;
  return {
    configVersion: row.configVersion,
    name: row.name,
    controlType,
    pulseSeconds: row.pulseSeconds,
    maxOfflineUsage: row.maxOfflineUsage ?? 0,
    offlineKeys,
    offlineKeyScheme: 'hmac-sha256',
    codeMode: row.codeMode === 'totp' ? 'totp' : 'static',
    // 0: no offline detection, so no interval to keep.
    ...(row.heartbeatInterval > 0 ? { heartbeatInterval: row.heartbeatInterval } : {}),
    // A TOTP resource's agent shows the current code on its display, so it needs the secret;
    // the config topic is readable by this bridge alone.
    ...(row.codeMode === 'totp' ? { totpSecret: ctx.tokens.open(row.switchOnCodeEncrypted) } : {}),
    ...(controlType === 'door' && row.unlockMode !== 'normal'
      ? { unlockMode: row.unlockMode as 'openingHours' | 'firstIn' }
      : {}),
    // Machines with a busy input (agent/src/idle.feature.ts): the idle switch-off and the grace.
    ...(controlType === 'machine' && row.idleTimeoutSeconds !== null
      ? { idleTimeoutSeconds: row.idleTimeoutSeconds, idleWarningSeconds: row.idleWarningSeconds ?? 60 }
      : {}),
    ...(controlType === 'machine' && row.busyGraceSeconds !== null
      ? { busyGraceSeconds: row.busyGraceSeconds }
      : {}),
    ...(window
      ? {
          unlockUntil: new Date(window.until.getTime() + ctx.bridges.clockOffsetMs(resourceId)).toISOString(),
        }
      : {}),
  };
}

export function createConfigRefresher(ctx: HubContext) {
  const running = new Map<number, Promise<void>>();
  const again = new Set<number>();
  async function refreshNow(accountId: number) {
    const bridges = await bumpConfigVersions(ctx.db, accountId);
    if (bridges.length === 0) return;
    // One read of the account's keys, packages and trainings serves every bridge.
    const facts = new OfflineKeyFacts(ctx.db, accountId);
    for (const resource of bridges) {
      const config = await bridgeConfigFor(ctx, resource, facts);
      if (config) await ctx.bridges.publishConfig(resource, config);
    }
  }
  return function refresh(accountId: number): Promise<void> {
    const current = running.get(accountId);
    if (current) {
      again.add(accountId);
      return current;
    }
    const run = (async () => {
      do {
        again.delete(accountId);
        await refreshNow(accountId);
      } while (again.has(accountId));
    })().finally(() => running.delete(accountId));
    running.set(accountId, run);
    return run;
  };
}

const refreshers = new WeakMap<HubContext, (accountId: number) => Promise<void>>();

/** Republishes the configs of every bridge of the account (after keys, members, packages or trainings changed). */
export function refreshBridgeConfigs(ctx: HubContext, accountId: number): Promise<void> {
  let refresh = refreshers.get(ctx);
  if (!refresh) {
    refresh = createConfigRefresher(ctx);
    refreshers.set(ctx, refresh);
  }
  return refresh(accountId).catch((err) => {
    ctx.logger.error({ err, accountId }, 'bridge config refresh failed');
  });
}

/**
 * Packages and trainings start and end on space-local dates, so a bridge's offline keys change
 * at local midnight without any write. `check()` (run once a minute by the hub) republishes the
 * bridge configs of every account one of whose spaces has reached a new local date since the
 * last check.
 */
export function watchLocalDates(ctx: HubContext, intervalMs = 60_000): PeriodicCheck {
  const lastDates = new Map<number, string>();
  // Spaces skipped while their account had no bridge: nothing to republish, so no wall time is
  // worked out (a hub with nothing to time never loads the time-zone code). When a bridge comes,
  // its config may have been made before a midnight that nobody watched: it is republished once.
  const unwatched = new Set<number>();
  async function checkNow(): Promise<void> {
    const spaces = await spaceZones(ctx.db);
    const at = ctx.clock.now();
    const changed = new Set<number>();
    for (const space of spaces) {
      if (!space.bridged) {
        lastDates.delete(space.id);
        unwatched.add(space.id);
        continue;
      }
      if (unwatched.delete(space.id)) changed.add(space.account);
      let today: string;
      try {
        today = localDate(at, space.timezone ?? 'UTC');
      } catch {
        today = localDate(at, 'UTC');
      }
      const before = lastDates.get(space.id);
      lastDates.set(space.id, today);
      if (before !== undefined && before !== today) changed.add(space.account);
    }
    for (const account of changed) await refreshBridgeConfigs(ctx, account);
  }
  return periodicCheck(checkNow, intervalMs, ctx.logger, 'checking for a new local date failed');
}

/**
 * Keeps offline keys current from where changes are written, not from URLs: every committed
 * change of an account's members, keys, packages, permissions, trainings or time rules
 * (`ctx.events.accessChanged`, announced by those writes whatever route led to them) republishes
 * the account's bridge configs. A burst of changes within `debounceMs` makes one refresh.
 * Returns the function that stops following.
 */
export interface AccessFollower {
  stop(): void;
  /** Resolves once no refresh is waiting or running (tests compare the database around a request). */
  settled(): Promise<void>;
}

export function followAccessChanges(ctx: HubContext, debounceMs = 100): AccessFollower {
  const timers = new Map<number, NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  const unsubscribe = ctx.events.onAccessChange((account) => {
    if (timers.has(account)) return;
    timers.set(
      account,
      setTimeout(() => {
        timers.delete(account);
        const refresh = refreshBridgeConfigs(ctx, account).finally(() => running.delete(refresh));
        running.add(refresh);
      }, debounceMs),
    );
  });
  return {
    stop() {
      unsubscribe();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
    async settled() {
      while (timers.size > 0 || running.size > 0) {
        if (running.size > 0) await Promise.allSettled([...running]);
        else await new Promise((resolve) => setTimeout(resolve, debounceMs / 4));
      }
    },
  };
}
