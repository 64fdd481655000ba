import type { MemberPrivileges } from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import { apiKeyCaller } from './api-keys.repository.js';
import type { Caller } from '../kernel/caller.js';
import { hashToken, safeEqual } from '../secrets.js';

interface Cached {
  caller: Caller | null;
  expires: number;
}

/**
 * Turns an API token into its caller. Results are cached briefly so the hot paths cost no
 * query; every change to keys or members clears the cache, so a deleted key stops working at
 * once on this hub (other hub processes notice within the TTL).
 */
export class Authenticator {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The caller of a token known to the cache (null: a token known to be wrong), or undefined
   * when only `authenticate` can tell: the hot paths answer without a promise.
   */
  cached(token: string): Caller | null | undefined {
    const hit = this.cache.get(hashToken(token));
    return hit && hit.expires > Date.now() ? hit.caller : undefined;
  }

  async authenticate(token: string): Promise<Caller | null> {
    const hash = hashToken(token);
    const hit = this.cache.get(hash);
    if (hit && hit.expires > Date.now()) return hit.caller;
    const row = await apiKeyCaller(this.db, hash);
    let caller: Caller | null = null;
    // The index look-up is by hash; the final comparison is constant-time all the same.
    if (row && safeEqual(row.tokenHash, hash) && row.state === 'active') {
      caller = {
        via: 'apiKey',
        apiKeyId: row.apiKeyId,
        sessionId: null,
        memberId: row.memberId,
        accountId: row.accountId,
        spaceId: row.spaceId,
        privileges: row.privileges as MemberPrivileges,
        superuser: row.superuser === 1,
      };
    }
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(hash, { caller, expires: Date.now() + this.ttlMs });
    return caller;
  }

  /** Forget every cached token (after any change to keys or members). */
  invalidate(): void {
    this.cache.clear();
  }
}
