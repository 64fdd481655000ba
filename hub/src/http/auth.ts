import type { FastifyRequest } from 'fastify';
import type { MemberPrivileges } from '@makerspace/shared';
import { forbidden, unauthorized } from './errors.js';

/** Who is calling: the member an API key acts as (DESIGN 4). */
export interface Caller {
  memberId: number;
  accountId: number;
  spaceId: number;
  privileges: MemberPrivileges;
  superuser: boolean;
  apiKeyId: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The live channel's streams (http/live.ts). */
    live: import('./live.js').LiveChannel;
  }
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** The route needs no token (docs, OpenAPI document, calendar feed). */
    public?: boolean;
  }
}

/** Reads the token from `Authorization: Bearer T` or Basic auth with T as the username. */
export function tokenFromHeader(header: string | undefined): string | null {
  if (!header) return null;
  const [scheme, value] = header.trim().split(/\s+/, 2);
  if (!value) return null;
  if (/^bearer$/i.test(scheme)) return value;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon === -1 ? decoded : decoded.slice(0, colon);
    return user || null;
  }
  return null;
}

export function isAdmin(caller: Caller): boolean {
  return caller.superuser || caller.privileges === 'admin' || caller.privileges === 'owner';
}

/** The caller of an authenticated route (the auth hook guarantees one). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw unauthorized();
  return request.caller;
}

export function requireAdmin(request: FastifyRequest): Caller {
  const caller = callerOf(request);
  if (!isAdmin(caller)) throw forbidden('Only admins and owners of the account may do this');
  return caller;
}

/** Can the caller see records of this account at all? */
export function seesAccount(caller: Caller, accountId: number): boolean {
  return caller.superuser || caller.accountId === accountId;
}
