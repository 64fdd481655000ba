import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionLifetimeMs } from './sessions.js';

export const sessionCookieName = 'makerspace_session';

/** The session token from the Cookie header, if any. */
export function sessionCookie(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === sessionCookieName) {
      const value = part.slice(eq + 1).trim();
      // Tokens are base64url: anything else is not one of ours.
      return /^[A-Za-z0-9_-]{1,200}$/.test(value) ? value : null;
    }
  }
  return null;
}

function attributes(request: FastifyRequest, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.header(
    'set-cookie',
    `${sessionCookieName}=${token}; ${attributes(request, Math.floor(sessionLifetimeMs / 1000))}`,
  );
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', `${sessionCookieName}=; ${attributes(request, 0)}`);
}
