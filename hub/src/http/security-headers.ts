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
 * Security headers on every response (helmet's), and `Cache-Control: no-store` on every
 * API answer: tokens, bridge keys, switch-on codes and calendar URLs travel in API bodies, and
 * nothing behind a token belongs in a shared or browser cache. A route that chose its own
 * caching (the calendar feed) keeps it; the docs page and its assets hold no secret.
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
  // They go among the reply's own headers, which Node checks once as it writes them. Routes that
  // write the raw response themselves (`rawRoutes`: the live channel's streams) get them on the
  // raw response too.
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.header(name, value);
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
  const api = `${apiPrefix}/`;
  const docs = `${apiPrefix}/docs`;
  app.addHook('onSend', (request, reply, payload, done) => {
    const url = request.url;
    if (url.startsWith(api) && !url.startsWith(docs) && !reply.hasHeader('cache-control')) {
      reply.header('cache-control', 'no-store');
    }
    done(null, payload);
  });
}
