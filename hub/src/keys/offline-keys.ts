import { MAX_OFFLINE_KEYS, offlineKeyHash } from '@makerspace/shared';
import type { ResourceRow } from '../access/policy.js';
import type { HubContext } from '../context.js';
import { type PeriodicCheck, periodicCheck } from '../periodic.js';
import type { Db } from '../db/crud.js';
import { spaceTimezone } from '../billing/settings.js';
import { localDate } from '../spaces/zoned-time.js';

/**
 * What the offline keys of an account's resources are made of, read once per refresh for the
 * whole account (a refresh republishes every bridge of the account: reading per resource would
 * read the account's keys and packages once per bridge). Answers are kept for the object's life.
 */
export class OfflineKeyFacts {
  private keys: Promise<
    { type: string; token: string; member: number; privileges: string; superuser: number }[]
  > | null = null;
  private readonly permissions = new Map<
    string,
    Promise<{ member: number; type: string; resource: number | null; resourceType: number | null }[]>
  >();
  private readonly trainings = new Map<string, Promise<{ member: number; resource: number }[]>>();
  private readonly zones = new Map<number, Promise<string>>();

  constructor(
    private readonly db: Db,
    readonly account: number,
  ) {}

  /** Active keys of active members, in key order. */
  activeKeys() {
    this.keys ??= this.db
      .selectFrom('member_keys as k')
      .innerJoin('members as m', 'm.id', 'k.member')
      .select(['k.type', 'k.token', 'm.id as member', 'm.privileges', 'm.superuser'])
      .where('k.account', '=', this.account)
      .where('k.state', '=', 'active')
      .where('m.state', '=', 'active')
      .orderBy('k.id')
      .execute();
    return this.keys;
  }

  /** The permissions of the member packages active on the (space-local) date. */
  permissionsOn(date: string) {
    let rows = this.permissions.get(date);
    if (!rows) {
      rows = this.db
        .selectFrom('member_packages as mp')
        .innerJoin('package_permissions as pp', 'pp.package', 'mp.package')
        .select(['mp.member', 'pp.type', 'pp.resource', 'pp.resourceType'])
        .where('mp.account', '=', this.account)
        .where('mp.fromDate', '<=', date)
        .where((eb) => eb.or([eb('mp.untilDate', 'is', null), eb('mp.untilDate', '>=', date)]))
        .execute();
      this.permissions.set(date, rows);
    }
    return rows;
  }

  /** Which member is trained for which resource on the date (active courses only). */
  trainingsOn(date: string) {
    let rows = this.trainings.get(date);
    if (!rows) {
      rows = this.db
        .selectFrom('member_trainings as t')
        .innerJoin('training_courses as c', 'c.id', 't.trainingCourse')
        .innerJoin('training_course_resources as r', 'r.course', 'c.id')
        .select(['t.member', 'r.resource'])
        .where('t.account', '=', this.account)
        .where('c.state', '=', 'active')
        .where((eb) => eb.or([eb('t.fromDate', 'is', null), eb('t.fromDate', '<=', date)]))
        .where((eb) => eb.or([eb('t.untilDate', 'is', null), eb('t.untilDate', '>=', date)]))
        .execute();
      this.trainings.set(date, rows);
    }
    return rows;
  }

  zone(space: number) {
    let zone = this.zones.get(space);
    if (!zone) {
      zone = spaceTimezone(this.db, space);
      this.zones.set(space, zone);
    }
    return zone;
  }
}

/**
 * The offline keys of a resource (DESIGN 7): offlineKeyHash (keyed per bridge) of every active key whose member
 * would be let in ignoring time-based rules: member active, key active, resource active, and an
 * admin/owner, or an active package permission covering the resource (or its type) plus the
 * training when the resource requires one. At most MAX_OFFLINE_KEYS (the protocol's limit), in
 * key order.
 */
export async function offlineKeysFor(
  db: Db,
  resource: Pick<ResourceRow, 'id' | 'account' | 'space' | 'type' | 'state' | 'requiresTraining'>,
  at: Date,
  /** The bridge's offlineKeySecret: each bridge gets its own hashes. */
  secret: Buffer,
  facts: OfflineKeyFacts = new OfflineKeyFacts(db, resource.account),
): Promise<string[]> {
  if (resource.state !== 'active') return [];
  const keys = await facts.activeKeys();
  if (keys.length === 0) return [];
  const today = localDate(at, await facts.zone(resource.space));
  const withPackage = new Set<number>();
  for (const p of await facts.permissionsOn(today)) {
    if (
      p.type === 'everything' ||
      (p.type === 'resource' && p.resource === resource.id) ||
      (p.type === 'resourceType' && resource.type !== null && p.resourceType === resource.type)
    ) {
      withPackage.add(p.member);
    }
  }
  let trained: Set<number> | null = null;
  if (resource.requiresTraining) {
    trained = new Set();
    for (const t of await facts.trainingsOn(today)) if (t.resource === resource.id) trained.add(t.member);
  }
  const allowed: string[] = [];
  for (const k of keys) {
    if (allowed.length >= MAX_OFFLINE_KEYS) break;
    const privileged = k.privileges === 'admin' || k.privileges === 'owner' || k.superuser === 1;
    if (privileged || (withPackage.has(k.member) && (trained === null || trained.has(k.member)))) {
      allowed.push(offlineKeyHash(k, secret));
    }
  }
  return allowed;
}

/**
 * Bumps the configVersion of every bridge of the account and republishes their retained configs
 * (their offline keys may have changed). Calls for an account coalesce: while one runs, the next
 * waits and runs once more, so the last change always reaches the bridges.
 */
export function createConfigRefresher(ctx: HubContext) {
  const running = new Map<number, Promise<void>>();
  const again = new Set<number>();
  async function refreshNow(accountId: number) {
    const bridges = await ctx.db
      .selectFrom('bridges')
      .select('resource')
      .where('account', '=', accountId)
      .execute();
    if (bridges.length === 0) return;
    await ctx.db
      .updateTable('bridges')
      .set((eb) => ({ configVersion: eb('configVersion', '+', 1) }))
      .where('account', '=', accountId)
      .execute();
    // One read of the account's keys, packages and trainings serves every bridge.
    const facts = new OfflineKeyFacts(ctx.db, accountId);
    for (const b of bridges) await ctx.bridges.publishConfig(b.resource, facts);
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
  async function checkNow(): Promise<void> {
    const spaces = await ctx.db.selectFrom('spaces').select(['id', 'account', 'timezone']).execute();
    const at = ctx.clock.now();
    const changed = new Set<number>();
    for (const space of spaces) {
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
