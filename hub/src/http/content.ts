import { parse as parseQueryString } from 'node:querystring';
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../errors.js';

const formKind = Symbol('formBody');

/** Was this request's body form-encoded (so its values are strings to coerce)? */
export function isFormBody(request: object): boolean {
  return (request as any)[formKind] === true;
}

/**
 * Body parsers: JSON (where the body `false`, or an empty body, means "no body": real clients
 * send `false` on calls without arguments) and application/x-www-form-urlencoded. Any other
 * content type is answered 415 by Fastify itself.
 */
export function registerBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, text, done) => {
    const body = (text as string).trim();
    if (body === '' || body === 'false') return done(null, undefined);
    try {
      const value = JSON.parse(body, (key, v) =>
        key === '__proto__' || key === 'constructor' ? undefined : v,
      );
      done(null, value);
    } catch (err) {
      done(badRequest(`Body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (req, text, done) => {
      (req as any)[formKind] = true;
      const parsed = parseQueryString(text as string);
      const body: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(parsed)) {
        if (k === '__proto__' || k === 'constructor') continue;
        body[k.endsWith('[]') ? k.slice(0, -2) : k] = v;
      }
      done(null, body);
    },
  );
}
