import type { FastifyRequest } from 'fastify';
import type { SessionRow } from '../sign-in/sessions.js';
import { forbidden, unauthorized } from '../errors.js';
import { adminOnly, type Caller } from '../kernel/caller.js';

export { type Caller, isAdmin, seesAccount } from '../kernel/caller.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The live channel's streams (http/live.ts). */
    live: import('./live.js').LiveChannel;
  }
  interface FastifyRequest {
    caller: Caller | null;
    /** The browser session of a cookie-authenticated call. */
    browserSession: SessionRow | null;
  }
  interface FastifyContextConfig {
    /** The route needs no token (docs, OpenAPI document, calendar feed, sign-in). */
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

/** The caller of an authenticated route (the auth hook guarantees one). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw unauthorized();
  return request.caller;
}

export function requireAdmin(request: FastifyRequest): Caller {
  return adminOnly(callerOf(request));
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Does this method change something (so cookie-authenticated calls need same-origin proof)? */
export function changesState(method: string): boolean {
  return !safeMethods.has(method.toUpperCase());
}

/**
 * The hub's own origin: that of HUB_PUBLIC_URL when set, else the one the request was made to.
 * Cookie-authenticated changes must come from pages of this origin.
 */
export function ownOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  return `${request.protocol}://${request.host}`;
}

/** The Origin header names the hub itself. */
export function fromOwnOrigin(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const origin = request.headers.origin;
  return typeof origin === 'string' && origin === ownOrigin(request, publicUrl);
}

export const csrfRefused = () =>
  forbidden('This request needs the Origin of this hub and the X-CSRF-Token of the session', {
    reason: 'csrf',
  });
