import type { Clock } from '../context.js';
import {
  addressKey,
  type FailureWindows,
  type FailureWindowsFactory,
  memoryFailureWindows,
} from '../throttling/failure-windows.js';

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

/**
 * Throttles failed MQTT CONNECT authentications (a wrong bridge key, an unknown resource id),
 * as the HTTP API throttles wrong tokens: per source address (IPv6 per /64), and per claimed
 * resource id against guessing from many addresses. A locked-out attempt is refused before its
 * key is checked, so it teaches nothing. Addresses where bridges logged in lately are spared:
 * the address lock-out does not apply to an address any bridge logged in from (a makerspace's
 * Pis often share one NAT address with whatever else fails there; guesses from it are still
 * limited per resource), and a resource's lock-out does not apply to the addresses its own
 * bridge logged in from, so guessing a door's key elsewhere does not lock the door's Pi out.
 * Failures are counted in this process's memory, or in Redis in cluster mode; the addresses
 * bridges logged in from are remembered by each hub.
 */
export class ConnectThrottle {
  private readonly byAddress: FailureWindows;
  private readonly byResource: FailureWindows;
  /** resource id -> address key -> when its bridge last logged in from there. */
  private readonly known = new Map<number, Map<string, number>>();
  /** address key -> when any bridge last logged in from there. */
  private readonly bridgeAddresses = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly settings: ConnectThrottleSettings = defaultConnectThrottle,
    windows: FailureWindowsFactory = memoryFailureWindows,
  ) {
    const { windowMs, limit, resourceLimit, maxEntries } = settings;
    this.byAddress = windows('mqtt-address', windowMs, limit, maxEntries);
    this.byResource = windows('mqtt-resource', windowMs, resourceLimit, maxEntries);
  }

  /** Null when the attempt may go ahead, else the lock-out that refuses it. */
  async check(address: string, resourceId: number | null): Promise<Lockout | null> {
    const now = this.clock.now().getTime();
    const key = addressKey(address);
    const byAddress = this.recentBridgeAddress(key, now) ? 0 : await this.byAddress.waitMs(key, now);
    if (byAddress > 0) return { scope: 'address', retryAfterSeconds: seconds(byAddress) };
    if (resourceId === null || this.isKnown(resourceId, key, now)) return null;
    const byResource = await this.byResource.waitMs(String(resourceId), now);
    return byResource > 0 ? { scope: 'resource', retryAfterSeconds: seconds(byResource) } : null;
  }

  /** Counts a failed authentication; returns the lock-out it begins, if it begins one. */
  async failed(address: string, resourceId: number | null): Promise<Lockout | null> {
    const now = this.clock.now().getTime();
    const key = addressKey(address);
    const addressLocked = (await this.byAddress.add(key, now)) && !this.recentBridgeAddress(key, now);
    const resourceLocked =
      resourceId !== null &&
      (await this.byResource.add(String(resourceId), now)) &&
      !this.isKnown(resourceId, key, now);
    if (addressLocked)
      return { scope: 'address', retryAfterSeconds: seconds(await this.byAddress.waitMs(key, now)) };
    if (resourceLocked)
      return {
        scope: 'resource',
        retryAfterSeconds: seconds(await this.byResource.waitMs(String(resourceId), now)),
      };
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
