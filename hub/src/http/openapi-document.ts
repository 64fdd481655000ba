import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import * as shared from '@makerspace/shared';
import { ErrorBody } from '@makerspace/shared';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../errors.js';
import { type ErrorStatus, noteKeys, type OperationNotes } from './openapi-doc.js';
import { assignOperationIds } from './operation-ids.js';

/**
 * Completes the OpenAPI document that @fastify/swagger builds from the routes' zod schemas and
 * their docs (summary, description, and the notes of http/openapi-doc.ts): body examples, and
 * every error answer an operation can give, derived from facts about it (does it need
 * credentials, has it path parameters, a query string, a body, a lockVersion, is it for admins)
 * and from its notes, each with the one error body. A response a route declares itself wins.
 */

type Json = Record<string, any>;

/**
 * The API's record types (`MemberRecord`, `BookingRecord`, ...) become named components that
 * operations refer to, instead of a copy in every operation that answers one: the document is
 * read by people under those names, and stays small enough for the docs page to open fast.
 */
const recordSchemas = z.registry<{ id: string }>();
for (const [name, value] of Object.entries(shared)) {
  if (name.endsWith('Record') && value instanceof z.ZodObject && !recordSchemas.has(value)) {
    recordSchemas.add(value, { id: name });
  }
}
const zodTransform = createJsonSchemaTransform({ schemaRegistry: recordSchemas });
const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry: recordSchemas });

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const ERROR_SCHEMA = '#/components/schemas/Error';
/** Where a route's notes travel from its schema to completeDocument (which takes them out again). */
const NOTES = 'x-notes';

/** The key of an operation: "GET /members/:memberId" for "/api/v1/members/{memberId}". */
export function operationKey(method: string, path: string, prefix: string): string {
  const local = path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
  return `${method.toUpperCase()} ${local.replace(/\{([^}]+)\}/g, ':$1')}`;
}

/** Every operation of the document with its key. */
export function operationsOf(
  doc: Json,
  prefix: string,
): { key: string; path: string; method: string; op: Json }[] {
  const out = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      if (item[method]) out.push({ key: operationKey(method, path, prefix), path, method, op: item[method] });
    }
  }
  return out;
}

/** A reason for an error answer: derived from the operation's shape (shared) or from its notes. */
interface Reason {
  id: string;
  text: string;
  example: { message: string; data?: Record<string, unknown> };
}

/** A reason's words and the message (and data) of its example error body. */
function explained(text: string, message: string, data?: Record<string, unknown>): Omit<Reason, 'id'> {
  return { text, example: data ? { message, data } : { message } };
}

const derived = {
  schema: explained(
    'The request does not match its schema: `data.validation` and `errors` name each field and what is wrong.',
    'body.firstName: Required',
    { validation: [{ path: 'firstName', message: 'Required' }] },
  ),
  credentials: explained(
    'No credentials, a wrong API token, or a browser session that has ended.',
    'Missing or invalid API token',
  ),
  admins: explained(
    'Only admins and owners of the account may do this.',
    'Only admins and owners of the account may do this',
  ),
  csrf: explained(
    'A change made with a browser session that lacks this hub’s `Origin` and the session’s `X-CSRF-Token`.',
    'This request needs the Origin of this hub and the X-CSRF-Token of the session',
    { reason: 'csrf' },
  ),
  invisible: explained(
    'No such record, or not one the caller may see (records of other accounts answer 404, never 403).',
    'Record not found',
  ),
  stale: explained(
    'Someone changed the record since it was read (stale `lockVersion`, `data.staleLockVersion`): reload it and try again.',
    'The record was changed by someone else (stale lockVersion); reload it and try again',
    { staleLockVersion: true },
  ),
  contentType: explained(
    'The body is neither JSON nor form-encoded.',
    'Unsupported content type: send application/json or application/x-www-form-urlencoded',
  ),
  throttle: explained(
    'Too many failed authentications from this address: a wrong token or bridge key waits `Retry-After` seconds (a valid one is never refused for it).',
    'Too many failed authentications from this address; try again in 42 s',
  ),
} satisfies Record<string, Omit<Reason, 'id'>>;

/** Example messages for reasons an operation's notes name without an example of their own. */
const genericMessage: Record<ErrorStatus, string> = {
  400: 'This sign-in link is not valid',
  401: 'Wrong email address or password',
  403: 'Only owners may do this',
  404: 'Record not found',
  409: 'The record conflicts with another one',
  410: 'This sign-in link has expired',
  413: 'The request body is too large',
  415: derived.contentType.example.message,
  422: 'Space 9 does not exist in this account',
  429: 'Too many attempts; try again in 30 seconds',
  502: 'The bridge could not switch: relay fault',
  503: 'The bridge of this resource is offline',
  504: 'No reply from the bridge within 5 s',
};

function hasLockVersion(schema: Json | undefined): boolean {
  if (!schema) return false;
  if (schema.properties?.lockVersion) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].some(hasLockVersion);
}

/** The reasons for each error status an operation can answer, derived from its shape and its notes. */
export function errorReasons(
  method: string,
  op: Json,
  entry: OperationNotes | undefined,
): Map<ErrorStatus, Reason[]> {
  const reasons = new Map<ErrorStatus, Reason[]>();
  const add = (status: ErrorStatus, reason: Reason) =>
    reasons.set(status, [...(reasons.get(status) ?? []), reason]);
  const because = (status: ErrorStatus, id: keyof typeof derived) => add(status, { id, ...derived[id] });
  const needsCredentials = !(Array.isArray(op.security) && op.security.length === 0);
  const parameters: Json[] = op.parameters ?? [];
  const inPath = parameters.some((p) => p.in === 'path');
  const inQuery = parameters.some((p) => p.in === 'query');
  const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
  const changes = !['get', 'head', 'options'].includes(method);

  if (inPath || inQuery || op.requestBody) because(400, 'schema');
  if (needsCredentials) because(401, 'credentials');
  if (entry?.admins) because(403, 'admins');
  if (needsCredentials && changes) because(403, 'csrf');
  if (inPath) because(404, 'invisible');
  if (hasLockVersion(body)) because(409, 'stale');
  if (op.requestBody) because(415, 'contentType');
  if (needsCredentials) because(429, 'throttle');
  for (const [key, text] of Object.entries(entry?.errors ?? {})) {
    const status = Number(key) as ErrorStatus;
    const example = entry?.errorExamples?.[status] ?? { message: genericMessage[status] };
    add(status, { id: 'particular', text, example });
  }
  return reasons;
}

function errorResponse(status: ErrorStatus, reasons: Reason[]): Json {
  const description = reasons.length === 1 ? reasons[0].text : reasons.map((r) => `- ${r.text}`).join('\n');
  // The operation's own reason makes the most telling example.
  const { message, data } = (reasons.find((r) => r.id === 'particular') ?? reasons[0]).example;
  const response: Json = {
    description,
    content: {
      'application/json': { schema: { $ref: ERROR_SCHEMA }, example: errorBody(status, message, data) },
    },
  };
  if (status === 429 || status === 503)
    response.headers = {
      'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
    };
  if (status === 401)
    response.headers = {
      'WWW-Authenticate': { description: 'Bearer realm="makerspace-hub"', schema: { type: 'string' } },
    };
  return response;
}

/** The error body as JSON Schema, for components.schemas.Error. */
function errorSchema(): Json {
  const { $schema: _, ...schema } = z.toJSONSchema(ErrorBody) as Json;
  return {
    ...schema,
    description:
      'Every error answer: the HTTP status, its name, a message for people, and `data` with details for programs (a `reason`, the failing fields).',
  };
}

const successWords: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted: queued, done in the background',
  '204': 'Done; no content',
};

/**
 * Success answers in words instead of the framework's "Default Response", naming the record they
 * carry. A delete that declares no answer answers 204 with no content (every delete of the API
 * does), not the 200 the framework assumes.
 */
function describeSuccess(method: string, op: Json): void {
  for (const [status, response] of Object.entries<Json>(op.responses)) {
    if (!status.startsWith('2') || response.description !== 'Default Response') continue;
    const schema = response.content?.['application/json']?.schema;
    if (method === 'delete' && status === '200' && !schema) {
      delete op.responses[status];
      op.responses['204'] = { description: 'Deleted; no content' };
      continue;
    }
    const ref: string | undefined = schema?.$ref ?? schema?.items?.$ref;
    const name = ref?.split('/').pop();
    const what = name ? (schema?.type === 'array' ? `: a page of ${name}s` : `: the ${name}`) : '';
    response.description = `${successWords[status] ?? 'Success'}${what}`;
  }
}

/** Fills body examples and error answers into the document from each operation's notes (in place). */
export function completeDocument(doc: Json, prefix: string): Json {
  const shared: Json = {};
  doc.components = {
    ...doc.components,
    schemas: { ...doc.components?.schemas, Error: errorSchema() },
    responses: { ...doc.components?.responses },
  };
  for (const { method, op } of operationsOf(doc, prefix)) {
    const entry: OperationNotes | undefined = op[NOTES];
    delete op[NOTES];
    const media = op.requestBody?.content?.['application/json'];
    if (media && entry?.example !== undefined && media.example === undefined && media.examples === undefined)
      media.example = entry.example;
    op.responses ??= {};
    if (entry?.answerExample !== undefined) {
      const success = Object.keys(op.responses).find((status) => /^2\d\d$/.test(status));
      const answer = success ? op.responses[success]?.content?.['application/json'] : undefined;
      if (answer && answer.example === undefined && answer.examples === undefined)
        answer.example = entry.answerExample;
    }
    describeSuccess(method, op);
    const reasons = errorReasons(method, op, entry);
    for (const status of [...reasons.keys()].sort((a, b) => a - b)) {
      if (op.responses[status]) continue;
      const these = reasons.get(status)!;
      if (these.some((r) => r.id === 'particular')) {
        op.responses[status] = errorResponse(status, these);
        continue;
      }
      // Answers that only follow from the operation's shape are shared: the document stays small.
      const name = [status, ...these.map((r) => r.id)].join('-');
      shared[name] ??= errorResponse(status, these);
      op.responses[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  Object.assign(doc.components.responses, Object.fromEntries(Object.entries(shared).sort()));
  assignOperationIds(operationsOf(doc, prefix));
  return doc;
}

/**
 * The per-route transform: the zod schemas become JSON Schema, the route's notes (http/openapi-doc.ts)
 * go along for completeDocument, and a route that needs no credentials (`config.public`) says
 * so, unless it names its own security.
 */
export const documentRoute: SwaggerTransform = (input) => {
  const out = zodTransform(input as Parameters<typeof zodTransform>[0]);
  const isPublic = input.route?.config?.public === true;
  if (!out.schema) return isPublic ? { ...out, schema: { security: [] } } : out;
  const schema: Json = { ...out.schema };
  if (schema.hide) return out;
  const notes: Json = {};
  for (const key of noteKeys) {
    if (schema[key] !== undefined) notes[key] = schema[key];
    delete schema[key];
  }
  if (Object.keys(notes).length > 0) schema[NOTES] = notes;
  if (isPublic && schema.security === undefined) schema.security = [];
  return { ...out, schema };
};

/** The whole-document transform: the record components, then completeDocument. */
export function documentObject(prefix: string): SwaggerTransformObject {
  return (input) => {
    const doc = completeDocument(zodTransformObject(input) as Json, prefix);
    dropUnusedSchemas(doc);
    return doc;
  };
}

/** Record components no operation refers to (the input twins of output records) leave the document. */
function dropUnusedSchemas(doc: Json): void {
  const schemas: Json = doc.components?.schemas ?? {};
  for (;;) {
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: undefined } });
    const referenced = new Set([...text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]));
    for (const schema of Object.values(schemas))
      for (const m of JSON.stringify(schema).matchAll(/"#\/components\/schemas\/([^"]+)"/g))
        referenced.add(m[1]);
    const unused = Object.keys(schemas).filter((name) => !referenced.has(name));
    if (unused.length === 0) return;
    for (const name of unused) delete schemas[name];
  }
}
