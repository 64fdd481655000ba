import type { BrowserSession, MemberPrivileges } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Clock } from '../context.js';
import type { Db } from '../db/crud.js';
import type { BrowserSessionsTable } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';
import { hashToken, newSecretToken, safeEqual, type TokenBox } from '../secrets.js';
import {
  insertSession,
  liveSessionsOf,
  revokeSessions,
  sessionByTokenHash,
  touchSession,
  unrevokedSessionIds,
} from './sign-in.repository.js';

export type SessionRow = Selectable<BrowserSessionsTable>;
export type SignInMethod = 'password' | 'link';

export const sessionLifetimeMs = 30 * 24 * 3600_000;
/** lastSeenAt and expiresAt move at most this often per session: not a write per request. */
const touchIntervalMs = 60_000;

export interface AuthenticatedSession {
  caller: Caller;
  session: SessionRow;
  /** The session's expiry moved on with this request (the cookie should be sent again). */
  refreshed: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Server-side browser sessions (docs/SIGN-IN.md). The cookie carries a random token; the table
 * holds only its SHA-256 hash. Revocations are announced to in-process listeners (the live
 * channel closes on them) after they are stored.
 */
export class SessionStore {
  private readonly listeners = new Set<(sessionIds: number[]) => void>();

  constructor(
    private readonly db: Db,
    private readonly tokens: TokenBox,
    private readonly clock: Clock,
  ) {}

  async create(
    member: { id: number; account: number },
    method: SignInMethod,
    client: { userAgent?: string | null; ipAddress?: string | null },
    db: Db = this.db,
  ): Promise<{ token: string; row: SessionRow }> {
    const token = newSecretToken();
    const now = this.clock.now().getTime();
    const row = await insertSession(db, {
      account: member.account,
      member: member.id,
      tokenHash: hashToken(token),
      method,
      createdAt: iso(now),
      lastSeenAt: iso(now),
      expiresAt: iso(now + sessionLifetimeMs),
      userAgent: client.userAgent?.slice(0, 512) ?? null,
      ipAddress: client.ipAddress ?? null,
    });
    return { token, row };
  }

  /** The caller of a session token: the session must be live and its member active and allowed to log in. */
  async authenticate(token: string): Promise<AuthenticatedSession | null> {
    const hash = hashToken(token);
    const row = await sessionByTokenHash(this.db, hash);
    // The index look-up is by hash; the final comparison is constant-time all the same.
    if (!row || !safeEqual(row.tokenHash, hash)) return null;
    const now = this.clock.now().getTime();
    if (row.revokedAt !== null || Date.parse(row.expiresAt) <= now) return null;
    if (row.state !== 'active' || Number(row.allowLogin) !== 1) return null;
    const { spaceId, privileges, superuser, state: _state, allowLogin: _allowLogin, ...session } = row;
    let refreshed = false;
    if (now - Date.parse(session.lastSeenAt) >= touchIntervalMs) {
      session.lastSeenAt = iso(now);
      session.expiresAt = iso(now + sessionLifetimeMs);
      await touchSession(this.db, session.id, session.lastSeenAt, session.expiresAt);
      refreshed = true;
    }
    return {
      caller: {
        memberId: session.member,
        accountId: session.account,
        spaceId,
        privileges: privileges as MemberPrivileges,
        superuser: Number(superuser) === 1,
        via: 'session',
        apiKeyId: null,
        sessionId: session.id,
      },
      session,
      refreshed,
    };
  }

  /** The session's CSRF token: derived from its token hash under the hub secret, never stored. */
  csrfToken(session: Pick<SessionRow, 'tokenHash'>): string {
    return this.tokens.mac(`csrf:${session.tokenHash}`);
  }

  csrfTokenMatches(session: Pick<SessionRow, 'tokenHash'>, sent: string | undefined): boolean {
    return typeof sent === 'string' && safeEqual(sent, this.csrfToken(session));
  }

  /** The member's live sessions, newest first. */
  async list(memberId: number): Promise<SessionRow[]> {
    return liveSessionsOf(this.db, memberId, this.clock.now().toISOString());
  }

  /** Revokes live sessions of a member (all of them, or those named); returns the ids revoked. */
  async revokeOfMember(memberId: number, options: { only?: number[]; except?: number } = {}) {
    if (options.only && options.only.length === 0) return [];
    const ids = await revokeSessions(this.db, memberId, this.clock.now().toISOString(), options);
    this.announce(ids);
    return ids;
  }

  /** Ids of the member's unrevoked sessions (read before the member is deleted with them). */
  async idsOfMember(memberId: number, db: Db = this.db): Promise<number[]> {
    return unrevokedSessionIds(db, memberId);
  }

  /** Tells listeners that these sessions ended (call after the change has committed). */
  announce(sessionIds: number[]): void {
    if (sessionIds.length === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(sessionIds);
      } catch {
        // A listener's failure must not undo or block a revocation.
      }
    }
  }

  /** Called after sessions are revoked, signed out everywhere, or their member locked or deleted. */
  onRevoked(listener: (sessionIds: number[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function sessionRecord(row: SessionRow, currentId: number | null): BrowserSession {
  return {
    id: row.id,
    method: row.method as BrowserSession['method'],
    createdAt: row.createdAt,
    lastSeenAt: row.lastSeenAt,
    expiresAt: row.expiresAt,
    userAgent: row.userAgent,
    ipAddress: row.ipAddress,
    current: row.id === currentId,
  };
}
