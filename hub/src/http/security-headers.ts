import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import helmet from 'helmet';

/**
 * Content-Security-Policy of everything the hub serves: the web app at `/` (Vite's built
 * /assets/*.js and *.css, no inline scripts; fetch and Server-Sent Events to /api/v1; QR codes as
 * images from /api/v1 or data: URLs). No `upgrade-insecure-requests`: a hub on a LAN may be
 * served over plain HTTP, where that directive would break every asset.
 */
export const contentSecurityPolicy = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The API docs page (swagger-ui): its scripts and stylesheet are files, but the page sets
 * element styles at run time, so styles may be inline there, and only there.
 */
export const docsContentSecurityPolicy = Object.entries({
  ...contentSecurityPolicy,
  'style-src': ["'self'", "'unsafe-inline'"],
})
  .map(([k, v]) => `${k} ${v.join(' ')}`)
  .join('; ');

/**
 * Headers that act on a document a browser shows (a page, the docs page), not on an API answer:
 * the OWASP REST Security Cheat Sheet lists them as "mainly for HTML responses". API answers go
 * without them (a JSON answer is never a page, and every answer carries them all otherwise).
 */
const documentOnly = new Set([
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]);

/**
 * Security headers on every response (helmet's), and `Cache-Control: no-store` on every
 * API answer: tokens, bridge keys, switch-on codes and calendar URLs travel in API bodies, and
 * nothing behind a token belongs in a shared or browser cache. A route that chose its own
 * caching (the calendar feed) keeps it; the docs page and its assets hold no secret. API answers
 * carry the headers that matter to an API (CSP with `frame-ancestors 'none'`, nosniff, frame
 * denial, HSTS, same-origin resources, no referrer) and not those of documentOnly.
 */
export async function registerSecurityHeaders(
  app: FastifyInstance,
  apiPrefix: string,
  rawRoutes: readonly string[] = [],
): Promise<void> {
  // The headers are the same on every answer (no nonces): helmet works them out once here, and
  // each request only sets them. Its Fastify plugin rebuilt them, CSP parsing included, per request.
  const headers: [string, string][] = [];
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
  })(
    {} as never,
    {
      setHeader: (name: string, value: string) => headers.push([name.toLowerCase(), value]),
      removeHeader: () => {},
    } as never,
    () => {},
  );
  // They go among the reply's own headers, which Node checks once as it writes them; API
  // answers get `no-store` in the same pass (a route that chose its own caching sets its own
  // value over it). Routes that write the raw response themselves (`rawRoutes`: the live
  // channel's streams) get them on the raw response too.
  const api = `${apiPrefix}/`;
  const docs = `${apiPrefix}/docs`;
  const apiHeaders = [
    ...headers.filter(([name]) => !documentOnly.has(name)),
    ['cache-control', 'no-store'] as [string, string],
  ];
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    const answer = url.startsWith(api) && !url.startsWith(docs) ? apiHeaders : headers;
    for (const [name, value] of answer) reply.header(name, value);
    done();
  });
  const raw = new Set(rawRoutes);
  const onRaw: onRequestHookHandler = (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  };
  app.addHook('onRoute', (route) => {
    if (!raw.has(route.url)) return;
    const own = route.onRequest;
    route.onRequest = own ? [onRaw, ...(Array.isArray(own) ? own : [own])] : [onRaw];
  });
}
