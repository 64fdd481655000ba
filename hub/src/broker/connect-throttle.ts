import { isIPv6 } from 'node:net';
import type { Clock } from '../context.js';
import { ipv6Groups } from '../webhooks/url-safety.js';
import { plainAddress } from './client-address.js';

export interface ConnectThrottleSettings {
  /** Failed CONNECT authentications one address may have within `windowMs`. */
  limit: number;
  /** Failed authentications for one resource id (from any addresses) within `windowMs`. */
  resourceLimit: number;
  windowMs: number;
  /** How long an address where a bridge logged in stays exempt from the lock-outs (see below). */
  knownAddressMs: number;
  /** Addresses and resource ids remembered at most (the least recent are forgotten first). */
  maxEntries: number;
}

export const defaultConnectThrottle: ConnectThrottleSettings = {
  limit: 10,
  resourceLimit: 30,
  windowMs: 60_000,
  knownAddressMs: 24 * 3600_000,
  maxEntries: 50_000,
};

/** Why a CONNECT is refused before its key is looked at, and for how long. */
export interface Lockout {
  scope: 'address' | 'resource';
  retryAfterSeconds: number;
}

/** Failure times per key, newest `keep` only, least recently failed first (a bounded LRU). */
class FailureWindows<K> {
  private readonly times = new Map<K, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly keep: number,
    private readonly maxEntries: number,
  ) {}

  /** Ms until `key` has fewer than `keep` failures in the window (0: it may try now). */
  waitMs(key: K, now: number): number {
    const recent = this.recent(key, now);
    return recent.length < this.keep ? 0 : recent[recent.length - this.keep] + this.windowMs - now;
  }

  /** Counts a failure; true when this one reached the limit (a lock-out begins). */
  add(key: K, now: number): boolean {
    const recent = [...this.recent(key, now), now].slice(-this.keep);
    this.times.delete(key);
    this.times.set(key, recent);
    if (this.times.size > this.maxEntries) this.times.delete(this.times.keys().next().value as K);
    return recent.length === this.keep;
  }

  private recent(key: K, now: number): number[] {
    const times = this.times.get(key);
    if (!times) return [];
    const kept = times.filter((t) => t > now - this.windowMs);
    if (kept.length === 0) this.times.delete(key);
    else if (kept.length !== times.length) this.times.set(key, kept);
    return kept;
  }
}

/**
 * Throttles failed MQTT CONNECT authentications (a wrong bridge key, an unknown resource id),
 * as the HTTP API throttles wrong tokens: per source address (IPv6 per /64), and per claimed
 * resource id against guessing from many addresses. A locked-out attempt is refused before its
 * key is checked, so it teaches nothing. Addresses where bridges logged in lately are spared:
 * the address lock-out does not apply to an address any bridge logged in from (a makerspace's
 * Pis often share one NAT address with whatever else fails there; guesses from it are still
 * limited per resource), and a resource's lock-out does not apply to the addresses its own
 * bridge logged in from, so guessing a door's key elsewhere does not lock the door's Pi out.
 * Kept in this process's memory.
 */
export class ConnectThrottle {
  private readonly byAddress: FailureWindows<string>;
  private readonly byResource: FailureWindows<number>;
  /** resource id -> address key -> when its bridge last logged in from there. */
  private readonly known = new Map<number, Map<string, number>>();
  /** address key -> when any bridge last logged in from there. */
  private readonly bridgeAddresses = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly settings: ConnectThrottleSettings = defaultConnectThrottle,
  ) {
    const { windowMs, limit, resourceLimit, maxEntries } = settings;
    this.byAddress = new FailureWindows(windowMs, limit, maxEntries);
    this.byResource = new FailureWindows(windowMs, resourceLimit, maxEntries);
  }

  /** Null when the attempt may go ahead, else the lock-out that refuses it. */
  check(address: string, resourceId: number | null): Lockout | null {
    const now = this.clock.now().getTime();
    const key = addressKey(address);
    const byAddress = this.recentBridgeAddress(key, now) ? 0 : this.byAddress.waitMs(key, now);
    if (byAddress > 0) return { scope: 'address', retryAfterSeconds: seconds(byAddress) };
    if (resourceId === null || this.isKnown(resourceId, key, now)) return null;
    const byResource = this.byResource.waitMs(resourceId, now);
    return byResource > 0 ? { scope: 'resource', retryAfterSeconds: seconds(byResource) } : null;
  }

  /** Counts a failed authentication; returns the lock-out it begins, if it begins one. */
  failed(address: string, resourceId: number | null): Lockout | null {
    const now = this.clock.now().getTime();
    const key = addressKey(address);
    const addressLocked = this.byAddress.add(key, now) && !this.recentBridgeAddress(key, now);
    const resourceLocked =
      resourceId !== null && this.byResource.add(resourceId, now) && !this.isKnown(resourceId, key, now);
    if (addressLocked)
      return { scope: 'address', retryAfterSeconds: seconds(this.byAddress.waitMs(key, now)) };
    if (resourceLocked)
      return { scope: 'resource', retryAfterSeconds: seconds(this.byResource.waitMs(resourceId, now)) };
    return null;
  }

  /** A bridge logged in from this address. */
  succeeded(address: string, resourceId: number): void {
    const addresses = this.known.get(resourceId) ?? new Map<string, number>();
    const key = addressKey(address);
    addresses.delete(key);
    addresses.set(key, this.clock.now().getTime());
    // A bridge has one or two addresses (IPv4 and IPv6); a few more cover a move.
    if (addresses.size > 4) addresses.delete(addresses.keys().next().value as string);
    this.known.delete(resourceId);
    this.known.set(resourceId, addresses);
    if (this.known.size > this.settings.maxEntries)
      this.known.delete(this.known.keys().next().value as number);
    this.bridgeAddresses.delete(key);
    this.bridgeAddresses.set(key, this.clock.now().getTime());
    if (this.bridgeAddresses.size > this.settings.maxEntries)
      this.bridgeAddresses.delete(this.bridgeAddresses.keys().next().value as string);
  }

  private recentBridgeAddress(key: string, now: number): boolean {
    const at = this.bridgeAddresses.get(key);
    return at !== undefined && now - at < this.settings.knownAddressMs;
  }

  private isKnown(resourceId: number, key: string, now: number): boolean {
    const at = this.known.get(resourceId)?.get(key);
    return at !== undefined && now - at < this.settings.knownAddressMs;
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** IPv4 (also IPv4-mapped IPv6) as it is; IPv6 by its /64, which one host usually owns whole. */
function addressKey(address: string): string {
  const plain = plainAddress(address);
  const groups = isIPv6(plain) ? ipv6Groups(plain) : null;
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(':')}::/64`
    : plain;
}
