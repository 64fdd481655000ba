import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { logStorageFailure } from '../db/storage-errors.js';
import { errorBody, HttpError } from '../errors.js';
import { routeOf } from './request-route.js';

const contextNames: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

const firstLine = (s: string) => s.split('\n', 1)[0].slice(0, 200);

/**
 * Database errors that are not the hub's fault. `badValue`: PostgreSQL's class 22 (data
 * exception: a NUL byte in text, a number out of the column's range), which only input causes.
 * `unavailable`: the server is unreachable or shutting down, the disk is full or the file
 * locked; the request changed nothing (its transaction rolled back) and may be retried.
 */
export function classifyDatabaseError(err: unknown): 'badValue' | 'unavailable' | null {
  const e = err as { code?: unknown; severity?: unknown; errno?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = err instanceof Error ? err.message : '';
  // pg and better-sqlite3 report a lost or closed connection without a code.
  if (
    /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|The database connection is not open)/.test(
      message,
    )
  )
    return 'unavailable';
  if (!code) return null;
  if (typeof e?.severity === 'string' && code.startsWith('22')) return 'badValue';
  if (typeof e?.severity === 'string' && /^(08|53|57P0[1-3])/.test(code)) return 'unavailable';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(code))
    return 'unavailable';
  if (/^SQLITE_(BUSY|FULL|IOERR|CANTOPEN|LOCKED|READONLY)/.test(code)) return 'unavailable';
  return null;
}

/**
 * The request's own connection failed: the client closed it before its body arrived (Node's
 * "aborted", ECONNRESET with no system call) and the request stream is gone. A database driver's
 * ECONNRESET comes from the driver's socket (`syscall: 'read'`) while the client still waits.
 */
export function isClientAbort(err: unknown, raw: { aborted?: boolean; destroyed?: boolean }): boolean {
  const e = err as { code?: unknown; syscall?: unknown } | null;
  if (e?.code !== 'ECONNRESET' && e?.code !== 'ECONNABORTED' && e?.code !== 'ERR_STREAM_PREMATURE_CLOSE')
    return false;
  return e.syscall === undefined && (raw.aborted === true || raw.destroyed === true);
}

/**
 * What answers a 401 to a request with credentials: `unauthorized()` sends the 401 itself (the
 * failed-authentication throttle, http/auth-throttle.ts, may answer 429 instead).
 */
export type UnauthorizedAnswer = (
  request: FastifyRequest,
  reply: FastifyReply,
  unauthorized: () => FastifyReply,
) => Promise<FastifyReply>;

/** One error handler: every error leaves as `{statusCode, error, message, data?}`. */
export function registerErrorHandler(
  app: FastifyInstance,
  options: { onUnauthorized?: UnauthorizedAnswer } = {},
): void {
  const { onUnauthorized } = options;
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof HttpError) {
      const answer = () => {
        if (err.headers) reply.headers(err.headers);
        return reply.code(err.statusCode).send(errorBody(err.statusCode, err.message, err.data));
      };
      if (err.statusCode === 401 && onUnauthorized && request.headers.authorization)
        return onUnauthorized(request, reply, answer);
      return answer();
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = contextNames[err.validationContext ?? 'body'] ?? 'request';
      const issues = err.validation.map((v) => ({
        path: v.instancePath.replace(/^\//, '').replace(/\//g, '.'),
        message: v.message,
      }));
      const message = issues.map((i) => `${where}${i.path ? `.${i.path}` : ''}: ${i.message}`).join('; ');
      return reply.code(400).send(errorBody(400, message, { validation: issues }));
    }
    if (isClientAbort(err, request.raw)) {
      // Nobody is left to answer; the database was never asked.
      // The route's pattern, not the path: secret URLs (calendar feeds, shadow receivers) stay out of the log.
      request.log.debug(
        { code: err.code, url: routeOf(request).url ?? request.url.split('?')[0] },
        'the client closed the connection before its request was complete',
      );
      return reply.code(400).send(errorBody(400, 'The request was aborted by the client'));
    }
    const database = classifyDatabaseError(err);
    if (database === 'badValue') {
      return reply
        .code(400)
        .send(errorBody(400, `A value is not valid for the database: ${firstLine(err.message)}`));
    }
    if (database === 'unavailable') {
      const operation = `${request.method} ${routeOf(request).url ?? request.url.split('?')[0]}`;
      logStorageFailure(request.log, err, operation, {}, 'the database is unavailable');
      return reply
        .header('retry-after', '5')
        .code(503)
        .send(errorBody(503, 'The database is unavailable; try again in a moment'));
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return reply
          .code(415)
          .send(
            errorBody(
              415,
              'Unsupported content type: send application/json or application/x-www-form-urlencoded',
            ),
          );
      }
      return reply.code(status).send(errorBody(status, err.message));
    }
    request.log.error({ err }, 'request failed');
    return reply.code(500).send(errorBody(500, 'An internal error occurred'));
  });
}
