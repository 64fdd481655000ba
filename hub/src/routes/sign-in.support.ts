import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, csrfRefused, fromOwnOrigin } from '../http/auth.js';
import type { OperationDoc } from '../http/openapi-doc.js';
import type { HubServices } from '../http/services.js';
import { HttpError, notFound } from '../errors.js';
import { type MemberRow, userMeRecord } from '../identity/members.js';
import { clearSessionCookie, setSessionCookie } from '../sign-in/cookie.js';
import { type SessionRow, type SignInMethod, sessionRecord } from '../sign-in/sessions.js';
import type { Throttle } from '../sign-in/throttle.js';

/** What the sign-in route files (login, links and password, sessions) share. */

export const tags = ['sign-in'];
export const open = { public: true };
export const noAuth: Record<string, string[]>[] = [];

/** The options of a public route that signs a browser in (answers 200 with the session cookie). */
export const signInRoute = <B, R>(doc: OperationDoc, body: B, response: R) => ({
  config: open,
  schema: { tags, ...doc, security: noAuth, body, response: { 200: response } },
});

export const wrongCredentials = () => new HttpError(401, 'Wrong email address or password');

const tooManyAttempts = (seconds: number) =>
  new HttpError(
    429,
    `Too many attempts; try again in ${seconds} seconds`,
    { retryAfter: seconds },
    { 'retry-after': String(seconds) },
  );

/** 429 with the real wait when any of the throttles is at its limit for its key. */
export async function throttled(checks: [Throttle, string][]): Promise<void> {
  let wait = 0;
  for (const [throttle, key] of checks) wait = Math.max(wait, await throttle.retryAfter(key));
  if (wait > 0) throw tooManyAttempts(wait);
}

/** Counts one attempt against each throttle for its key (a failure, or every request). */
export async function countAttempt(checks: [Throttle, string][]): Promise<void> {
  for (const [throttle, key] of checks) await throttle.hit(key);
}

/** Admits a request that every one counts (`throttled`, then `countAttempt`). */
export async function admitted(checks: [Throttle, string][]): Promise<void> {
  await throttled(checks);
  await countAttempt(checks);
}

/**
 * The routes that set the session cookie are public, so the auth hook's CSRF rule does not
 * cover them: a page of another site must not sign a browser in (to an account of its choice).
 */
export function refuseCrossSite(ctx: HubServices, request: FastifyRequest): void {
  if (request.headers.origin !== undefined && !fromOwnOrigin(request, ctx.publicUrl)) throw csrfRefused();
}

/** The browser a session is created for. */
export const client = (request: FastifyRequest) => ({
  userAgent: request.headers['user-agent'] ?? null,
  ipAddress: request.ip ?? null,
});

export const createSession = (
  ctx: HubServices,
  member: MemberRow,
  method: SignInMethod,
  request: FastifyRequest,
) => ctx.sessions.create(member, method, client(request));

/** Answers a sign-in: sets the session cookie; the body carries the member, session and CSRF token. */
export function startSession(
  ctx: HubServices,
  request: FastifyRequest,
  reply: FastifyReply,
  member: MemberRow,
  session: { token: string; row: SessionRow },
) {
  setSessionCookie(request, reply, session.token);
  reply.header('cache-control', 'no-store');
  const me = userMeRecord(member);
  return {
    ...me,
    state: 'active' as const,
    member: me,
    csrfToken: ctx.sessions.csrfToken(session.row),
    session: sessionRecord(session.row, session.row.id),
  };
}

/**
 * Signs the caller out and answers 204: of this call's session (`'this'`, also when the call has
 * none), of one of their live sessions by id (404 otherwise), or of `'all'`. The session cookie
 * is cleared when this call's session ends, and by a sign-out of `'this'` in any case.
 */
export async function endSessions(
  ctx: HubServices,
  request: FastifyRequest,
  reply: FastifyReply,
  which: 'this' | 'all' | number,
) {
  const caller = callerOf(request);
  const own = caller.sessionId;
  // The sessions to end: none named means every one.
  let only: number[] | undefined;
  if (which === 'this') only = own === null ? [] : [own];
  else if (which !== 'all') {
    const live = await ctx.sessions.list(caller.memberId);
    if (!live.some((s) => s.id === which)) throw notFound('Session');
    only = [which];
  }
  await ctx.sessions.revokeOfMember(caller.memberId, { only });
  // A sign-out clears the cookie also when it names no live session.
  const ownEnded = own !== null && (only === undefined || only.includes(own));
  if (which === 'this' || ownEnded) clearSessionCookie(request, reply);
  return reply.code(204).send();
}
