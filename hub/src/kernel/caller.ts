import type { MemberPrivileges } from '@makerspace/shared';
import { forbidden } from '../errors.js';

/** Who is calling: the member an API key or a browser session acts as (DESIGN 4). */
export interface Caller {
  memberId: number;
  accountId: number;
  spaceId: number;
  privileges: MemberPrivileges;
  superuser: boolean;
  /** How the call was authenticated: an API token (Bearer/Basic) or the session cookie. */
  via: 'apiKey' | 'session';
  /** The API key of the call (via 'apiKey'), else null. */
  apiKeyId: number | null;
  /** The browser session of the call (via 'session'), else null. */
  sessionId: number | null;
}

export function isAdmin(caller: Caller): boolean {
  return caller.superuser || caller.privileges === 'admin' || caller.privileges === 'owner';
}

/** The caller, when an admin or owner of the account (or a superuser); 403 otherwise. */
export function adminOnly(caller: Caller): Caller {
  if (!isAdmin(caller)) throw forbidden('Only admins and owners of the account may do this');
  return caller;
}

/** Can the caller see records of this account at all? */
export function seesAccount(caller: Caller, accountId: number): boolean {
  return caller.superuser || caller.accountId === accountId;
}

/**
 * Webhook payloads leave the hub: they carry records as a plain member would read them, so a
 * resource's switch-on code (shown to admins in the API) is never sent to a receiver.
 */
export const webhookReceiver: Caller = {
  memberId: 0,
  accountId: 0,
  spaceId: 0,
  privileges: 'member',
  superuser: false,
  via: 'apiKey',
  apiKeyId: null,
  sessionId: null,
};

/** The account whose records the caller sees, or null for a superuser (every account). */
export function accountOf(caller: Caller): number | null {
  return caller.superuser ? null : caller.accountId;
}
