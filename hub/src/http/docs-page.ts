import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OpenApiDocument } from './openapi-source.js';

/** A wrench in a rounded square: the docs page's tab icon instead of the framework's. */
const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f5f8b"/><path d="M21.5 6.5a5 5 0 0 0-5.9 6.6L7.8 20.9a2 2 0 0 0 2.8 2.8l7.8-7.8a5 5 0 0 0 6.6-5.9l-3 3-2.4-.6-.6-2.4z" fill="#fff"/></svg>`;

type Json = Record<string, any>;

/** A JSON Schema 2020-12 (OpenAPI 3.1) schema as OpenAPI 3.0 writes it, for display. */
function schema30(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(schema30);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    // Literal values, not schemas.
    out[key] = ['example', 'enum', 'default', 'const'].includes(key) ? child : schema30(child);
  }
  if (Array.isArray(out.type)) {
    const types = out.type.filter((t: string) => t !== 'null');
    if (types.length < out.type.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      if (types.length > 1) out.anyOf = types.map((type: string) => ({ type }));
    }
  }
  for (const key of ['anyOf', 'oneOf']) {
    const branches = out[key];
    if (!Array.isArray(branches) || !branches.some((b: Json) => b?.type === 'null')) continue;
    const rest = branches.filter((b: Json) => b?.type !== 'null');
    delete out[key];
    Object.assign(out, rest.length === 1 ? rest[0] : { [key]: rest }, { nullable: true });
  }
  if ('const' in out && typeof out.type === 'string') {
    out.enum = [out.const];
    delete out.const;
  }
  for (const [bound, flag] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ]) {
    if (typeof out[flag] === 'number') {
      out[bound] = out[flag];
      out[flag] = true;
    }
  }
  if (Array.isArray(out.examples) && typeof out.type === 'string') {
    out.example = out.examples[0];
    delete out.examples;
  }
  delete out.propertyNames;
  return out;
}

const shown = new WeakMap<object, Json>();

/**
 * The document as the docs page gets it: the same operations, written as OpenAPI 3.0.
 * swagger-ui reads a 3.1 document through a much slower path (seconds for ours; upstream
 * swagger-ui issues 8606 and 10748), while a 3.0 one opens at once. /api/v1/openapi.json stays
 * the 3.1 document; this copy is made once per document.
 */
export function docsPageDocument(document: Readonly<Json>): Json {
  let copy = shown.get(document);
  if (!copy) {
    copy = { ...(schema30(document) as Json), openapi: '3.0.3' };
    // OpenAPI 3.0's license has a name and a url only (`identifier` came with 3.1).
    if (copy.info?.license?.identifier) {
      const { identifier: _, ...license } = copy.info.license;
      copy.info = { ...copy.info, license };
    }
    shown.set(document, copy);
  }
  return copy;
}

/**
 * The interactive API docs at /api/v1/docs (swagger-ui): the product's name as title and
 * heading, no framework logo or top bar, and nothing that slows the first render: a 3.0
 * rendition of the document (docsPageDocument), operations listed but not expanded, no schema
 * section (each operation shows its schemas), no badge from validator.swagger.io.
 */
export const docsPage: Omit<FastifySwaggerUiOptions, 'routePrefix'> = {
  // null: no logo at all (undefined would bring the framework's); the plugin's types omit null.
  logo: null as unknown as undefined,
  transformSpecification: (document) => docsPageDocument(document),
  transformSpecificationClone: false,
  theme: {
    title: 'Makerspace hub API',
    favicon: [
      { filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: favicon },
    ],
  },
  uiConfig: {
    layout: 'BaseLayout',
    docExpansion: 'list',
    defaultModelsExpandDepth: -1,
    displayRequestDuration: true,
    validatorUrl: null,
  },
};

/** Headers of the docs app's answer that belong to that answer's own connection, not ours. */
const hopHeaders = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * Serves the docs page at `routePrefix` (and its assets below it), loading swagger-ui only when
 * the page is first asked for: a space that never opens it never holds it. The page and its
 * assets come from a small Fastify app of their own, built on that first request, that reads
 * the hub's OpenAPI document (http/openapi-source.ts); each request is answered with what that app
 * answers (status, headers, body).
 */
export function registerDocsPage(
  app: FastifyInstance,
  routePrefix: string,
  contentSecurityPolicy: string,
  openApi: OpenApiDocument,
): void {
  let docs: Promise<FastifyInstance> | null = null;
  const load = async () => {
    const [{ default: Fastify }, { default: swaggerUi }, document] = await Promise.all([
      import('fastify'),
      import('@fastify/swagger-ui'),
      openApi(),
    ]);
    const page = Fastify({ routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true } });
    // What swagger-ui reads: the hub's document, under the name of the plugin that makes it.
    const documentSource = Object.assign(
      async (instance: FastifyInstance) => {
        instance.decorate('swagger', (() => document) as never);
      },
      { [Symbol.for('skip-override')]: true, [Symbol.for('plugin-meta')]: { name: '@fastify/swagger' } },
    );
    await page.register(documentSource);
    await page.register(swaggerUi, { routePrefix, staticCSP: contentSecurityPolicy, ...docsPage });
    await page.ready();
    return page;
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    docs ??= load().catch((err) => {
      docs = null;
      throw err;
    });
    const answer = await (await docs).inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: request.headers,
    });
    // A path the page does not have is the hub's 404, in the hub's error body.
    if (answer.statusCode === 404) return reply.callNotFound();
    reply.code(answer.statusCode);
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !hopHeaders.has(name)) reply.header(name, value);
    }
    return reply.send(answer.rawPayload);
  };
  app.addHook('onClose', async () => {
    await (await docs?.catch(() => null))?.close();
  });
  const options = { schema: { hide: true }, config: { public: true } };
  app.route({ method: ['GET', 'HEAD'], url: routePrefix, handler, ...options });
  app.route({ method: ['GET', 'HEAD'], url: `${routePrefix}/*`, handler, ...options });
}
