import type { FastifyInstance, RouteOptions } from 'fastify';

/** The API's OpenAPI 3.1 document, built on its first request. */
export type OpenApiDocument = () => Promise<Record<string, any>>;

/** What the document says of the API as a whole, beside its operations. */
export interface OpenApiInfo {
  prefix: string;
  description: string;
  /** HUB_PUBLIC_URL, when set: the document's server; else the document's own host. */
  publicUrl?: string | null;
}

/**
 * Collects the routes the API's document describes as they are declared, and builds the
 * document (@fastify/swagger over their zod schemas, completed by http/openapi-document.ts) on
 * the first request for it: a space that never reads its API document never loads the code that
 * writes one. The document is built once, by a Fastify app of its own that declares the same
 * routes (the same methods, paths, schemas and docs) and is closed again once it has answered.
 */
export function collectOpenApi(app: FastifyInstance, info: OpenApiInfo): OpenApiDocument {
  const routes: RouteOptions[] = [];
  // HEAD routes are GET's twins (Fastify adds one per GET): the document leaves them out.
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD') routes.push(route);
  });
  let built: Promise<Record<string, any>> | null = null;
  return () =>
    (built ??= buildDocument(routes, info).catch((err) => {
      built = null;
      throw err;
    }));
}

async function buildDocument(
  routes: readonly RouteOptions[],
  info: OpenApiInfo,
): Promise<Record<string, any>> {
  const [{ default: Fastify }, { default: swagger }, { documentObject, documentRoute }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('./openapi-document.js'),
  ]);
  // No request ever reaches this app: its routes need no validation or serialisation.
  const none = () => () => () => true;
  const doc = Fastify({
    schemaController: { compilersFactory: { buildValidator: none as never, buildSerializer: none as never } },
  });
  await doc.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Makerspace hub API',
        version: '1.0.0',
        description: info.description,
        // The project publishes no licence of its own yet (docs/DECISIONS.md).
        license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
      },
      // Without HUB_PUBLIC_URL the document's own host (a relative server URL).
      servers: [info.publicUrl ? { url: info.publicUrl } : { url: '/', description: 'This hub' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key token' },
          basic: { type: 'http', scheme: 'basic', description: 'The token as username, empty password' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'makerspace_session',
            description:
              'The browser session of POST /user/login or a redeemed sign-in link; changes also need Origin and X-CSRF-Token',
          },
        },
      },
      security: [{ bearer: [] }, { basic: [] }, { session: [] }],
    },
    // Each route's summary, description and notes (http/openapi-doc.ts) make its docs.
    transform: documentRoute,
    transformObject: documentObject(info.prefix),
  });
  const handler = async () => null;
  for (const { method, url, schema, config, constraints } of routes) {
    doc.route({ method, url, schema, config, constraints, handler });
  }
  await doc.ready();
  try {
    return doc.swagger();
  } finally {
    await doc.close();
  }
}
