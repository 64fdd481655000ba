import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../errors.js';

/** web/dist beside the hub package: built by `npm run build` (which `npm start` runs). */
export const defaultWebDir = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/**
 * Serves the web app (DESIGN 11) at `/` from the same process and port as the API. Its pages
 * are one HTML file: any GET outside /api that asks for HTML gets it, and the app routes in the
 * browser. Hashed assets are cached for good; the HTML never is, so a new version shows at once.
 */
export async function serveWebApp(app: FastifyInstance, dir = defaultWebDir): Promise<void> {
  const indexFile = join(dir, 'index.html');
  const built = existsSync(indexFile);
  if (built) {
    await app.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      index: 'index.html',
      wildcard: true,
      // The build's Brotli and gzip copies (web/precompress.ts) go to browsers that accept them.
      preCompressed: true,
      setHeaders(res, path) {
        res.header(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  const page = () => (built ? readFileSync(indexFile) : null);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const wantsPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      !path.startsWith('/api/') &&
      !path.startsWith('/assets/') &&
      (request.headers.accept ?? '').includes('text/html');
    if (!wantsPage) {
      return reply.code(404).send(errorBody(404, `Route ${request.method} ${path} not found`));
    }
    const html = page();
    if (!html) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web app is not built. Run `npm run build` (npm start does it) and reload.\n');
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  });
}
