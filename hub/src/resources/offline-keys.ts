import { MAX_OFFLINE_KEYS, offlineKeyHash } from '@makerspace/shared';
import type { ResourceRow } from '../access/policy.js';
import type { Db } from '../db/crud.js';
import { spaceZone } from '../access/access.repository.js';
import { executorReads } from '../db/fast-reads.js';
import { localDate } from '../kernel/zoned-time.js';
import { activeKeysOf, packagePermissionsOn, trainingsOn } from '../keys/cards.repository.js';

/** The value kept under `key`, loaded on the first ask. */
function cached<K, V>(map: Map<K, V>, key: K, load: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = load();
    map.set(key, value);
  }
  return value;
}

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
    this.keys ??= activeKeysOf(this.db, this.account);
    return this.keys;
  }

  /** The permissions of the member packages active on the (space-local) date. */
  permissionsOn(date: string) {
    return cached(this.permissions, date, () => packagePermissionsOn(this.db, this.account, date));
  }

  /** Which member is trained for which resource on the date (active courses only). */
  trainingsOn(date: string) {
    return cached(this.trainings, date, () => trainingsOn(this.db, this.account, date));
  }

  zone(space: number) {
    // The policy's own read of the zone (UTC when unset), so both decide on the same day.
    return cached(this.zones, space, async () => (await spaceZone(executorReads(this.db), space)) ?? 'UTC');
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
  return (await offlineKeyCards(db, resource, at, facts)).map((k) => offlineKeyHash(k, secret));
}

/**
 * The same keys as offlineKeysFor, as cards `{type, token}`: what HTTP bridges of the commercial
 * bridge API get (they compare a card with the list as is). Only this resource's allowed members.
 */
export async function offlineKeyCards(
  db: Db,
  resource: Pick<ResourceRow, 'id' | 'account' | 'space' | 'type' | 'state' | 'requiresTraining'>,
  at: Date,
  facts: OfflineKeyFacts = new OfflineKeyFacts(db, resource.account),
): Promise<{ type: string; token: string }[]> {
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
  const allowed: { type: string; token: string }[] = [];
  for (const k of keys) {
    if (allowed.length >= MAX_OFFLINE_KEYS) break;
    const privileged = k.privileges === 'admin' || k.privileges === 'owner' || k.superuser === 1;
    if (privileged || (withPackage.has(k.member) && (trained === null || trained.has(k.member)))) {
      allowed.push({ type: k.type, token: k.token });
    }
  }
  return allowed;
}

/**
 * Bumps the configVersion of every bridge of the account and republishes their retained configs
 * (their offline keys may have changed). Calls for an account coalesce: while one runs, the next
 * waits and runs once more, so the last change always reaches the bridges.
 */
