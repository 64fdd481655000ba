import SwaggerParser from '@apidevtools/swagger-parser';
import { AccessSimulationResult, ErrorBody } from '@makerspace/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * The OpenAPI document at /api/v1/openapi.json is one people read: it validates, every
 * operation says what it does and which errors it can answer, and every body has an example
 * the hub accepts. A route added later without its docs (summary, description, notes: see
 * hub/src/http/openapi-doc.ts) fails here by name.
 */

const methods = ['get', 'put', 'post', 'delete', 'patch'];
type Json = Record<string, any>;

interface Operation {
  name: string;
  method: string;
  path: string;
  op: Json;
}

function operationsOf(doc: Json): Operation[] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    methods
      .filter((m) => item[m])
      .map((method) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op: item[method] })),
  );
}

/** A response object, following a `$ref` into components. */
function resolved(doc: Json, response: Json): Json {
  if (!response?.$ref) return response;
  const [, , kind, name] = String(response.$ref).split('/');
  return doc.components[kind][name];
}

describe('the OpenAPI document', () => {
  let t: TestHub;
  let doc: Json;
  let operations: Operation[];
  beforeAll(async () => {
    t = await startTestHub('sqlite');
    const res = await t.app.inject({ url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
    operations = operationsOf(doc);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as any)).resolves.toBeTruthy();
    expect(operations.length).toBeGreaterThan(100);
  });

  it('every operation has a unique, camelCase operationId that client generators name methods by', () => {
    const ids = operations.map(({ op }) => op.operationId as string);
    expect(operations.filter(({ op }) => !op.operationId).map(({ name }) => name)).toEqual([]);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const idOf = (name: string) => operations.find((o) => o.name === name)?.op.operationId;
    expect(idOf('GET /api/v1/members')).toBe('listMembers');
    expect(idOf('POST /api/v1/members')).toBe('createMember');
    expect(idOf('GET /api/v1/members/{memberId}/credits/{creditId}')).toBe('getMemberCredit');
    expect(idOf('POST /api/v1/resources/{resourceId}/switch-on')).toBe('switchOnResource');
    expect(idOf('POST /api/v1/resources/{resourceId}/bridge/switch-on')).toBe('switchOnResourceBridge');
    expect(idOf('POST /api/v1/invoices/{invoiceId}/cancel')).toBe('cancelInvoice');
    expect(doc.info.license).toMatchObject({ name: expect.any(String) });
    expect(doc.servers.length).toBeGreaterThan(0);
  });

  it('every operation has a summary and a description', () => {
    const missing = operations
      .filter(({ op }) => !op.summary?.trim() || !op.description?.trim())
      .map(
        ({ name, op }) => `${name}: ${op.summary ? '' : 'summary '}${op.description ? '' : 'description'}`,
      );
    expect(missing, 'give these routes a summary and a description (hub/src/http/openapi-doc.ts)').toEqual(
      [],
    );
  });

  it('every operation lists the error answers its shape implies, each with the error body and an example', () => {
    const missing: string[] = [];
    for (const { name, method, op } of operations) {
      const expected = new Set<number>();
      const needsCredentials = !(Array.isArray(op.security) && op.security.length === 0);
      const parameters: Json[] = op.parameters ?? [];
      const body = op.requestBody?.content?.['application/json']?.schema ?? {};
      const bodyFields = [body, ...(body.anyOf ?? [])].flatMap((s: Json) => Object.keys(s.properties ?? {}));
      if (needsCredentials) expected.add(401).add(429);
      if (needsCredentials && method !== 'get') expected.add(403);
      if (parameters.some((p) => p.in === 'path')) expected.add(404);
      if (parameters.length > 0 || op.requestBody) expected.add(400);
      if (op.requestBody) expected.add(415);
      if (bodyFields.includes('lockVersion')) expected.add(409);
      for (const status of expected) if (!op.responses?.[status]) missing.push(`${name}: ${status}`);

      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        if (Number(status) < 400 || (name.endsWith(' /ready') && status === '503')) continue;
        const answer = resolved(doc, response);
        const media = answer?.content?.['application/json'];
        if (!answer?.description?.trim()) missing.push(`${name}: ${status} has no description`);
        if (media?.schema?.$ref !== '#/components/schemas/Error')
          missing.push(`${name}: ${status} not the error body`);
        const example = ErrorBody.safeParse(media?.example);
        if (!example.success || example.data.statusCode !== Number(status))
          missing.push(`${name}: ${status} example is not an error body of that status`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('a real error answer is one the document lists, in its shape', async () => {
    const answers = [
      {
        name: 'GET /api/v1/members/{memberId}',
        res: await t.call(t.owner.token, { url: '/api/v1/members/999999' }),
      },
      { name: 'GET /api/v1/members', res: await t.app.inject({ url: '/api/v1/members' }) },
      {
        name: 'PUT /api/v1/members/{memberId}',
        res: await t.call(t.owner.token, {
          method: 'PUT',
          url: `/api/v1/members/${t.owner.memberId}`,
          payload: { lockVersion: 999, city: 'Vienna' },
        }),
      },
      {
        name: 'POST /api/v1/members',
        res: await t.call(t.owner.token, {
          method: 'POST',
          url: '/api/v1/members',
          payload: { lastName: 'x' },
        }),
      },
    ];
    expect(answers.map((a) => a.res.statusCode)).toEqual([404, 401, 409, 400]);
    for (const { name, res } of answers) {
      const [method, path] = name.split(' ');
      expect(doc.paths[path][method.toLowerCase()].responses, name).toHaveProperty(String(res.statusCode));
      expect(ErrorBody.parse(res.json()).statusCode).toBe(res.statusCode);
    }
  });

  it('every request body has an example, and the hub takes it as valid', async () => {
    // Bridges call with their bridge API key.
    const resource = await t.call(t.owner.token, {
      method: 'POST',
      url: '/api/v1/resources',
      payload: { space: t.owner.spaceId, name: 'Example door', controlType: 'door' },
    });
    const resourceId = resource.json().id;
    await t.call(t.owner.token, {
      method: 'PUT',
      url: `/api/v1/resources/${resourceId}/bridge`,
      payload: {},
    });
    const bridgeKey = (
      await t.call(t.owner.token, { url: `/api/v1/resources/${resourceId}/bridge/api-key` })
    ).json().apiKey;

    const problems: string[] = [];
    for (const { name, method, path, op } of operations) {
      const media = op.requestBody?.content?.['application/json'];
      if (!media) continue;
      if (media.example === undefined) {
        problems.push(`${name}: no example`);
        continue;
      }
      // Ids that exist nowhere: the body is checked before any record is looked up.
      const url = path.replace(/\{[^}]+\}/g, '999999');
      const token = path.startsWith('/api/v1/bridge/') ? bridgeKey : t.owner.token;
      const res = await t.call(token, {
        method: method.toUpperCase() as 'POST',
        url,
        payload: media.example,
      });
      // Where the document says a 400 has a reason of its own (an unknown pairing code), the
      // answer cannot tell the two apart: only the example's presence counts there.
      const schemaOnly400 = op.responses?.[400]?.$ref !== undefined;
      if (res.statusCode === 400 && res.json().data?.validation && schemaOnly400)
        problems.push(`${name}: the example is refused: ${res.json().message}`);
      if (res.statusCode >= 500) problems.push(`${name}: ${res.statusCode}`);
    }
    expect(problems).toEqual([]);
  });

  it('the docs page reads the same operations as a valid OpenAPI 3.0 document', async () => {
    const shown = (await t.app.inject({ url: '/api/v1/docs/json' })).json();
    expect(shown.openapi).toBe('3.0.3');
    await expect(SwaggerParser.validate(structuredClone(shown))).resolves.toBeTruthy();
    expect(operationsOf(shown).map((o) => `${o.name} ${o.op.summary}`)).toEqual(
      operations.map((o) => `${o.name} ${o.op.summary}`),
    );
  });

  it('an answer example is one the answer’s own schema takes (access simulations have one)', () => {
    const answered = operations.flatMap(({ name, op }) =>
      Object.entries<Json>(op.responses ?? {})
        .filter(([status, response]) => /^2/.test(status) && response.content?.['application/json']?.example)
        .map(([, response]) => ({ name, media: response.content['application/json'] })),
    );
    const simulation = answered.find(({ name }) => name === 'POST /api/v1/access-simulations');
    expect(simulation).toBeDefined();
    expect(AccessSimulationResult.parse(simulation?.media.example).changes[0]).toMatchObject({
      gains: [expect.any(Object)],
      reason: 'openingHours',
    });
    // Each against its schema as the document states it (additionalProperties, required fields).
    const problems: string[] = [];
    for (const { name, media } of answered) {
      const required = (schema: Json, value: unknown, at: string) => {
        if (schema?.type !== 'object' || typeof value !== 'object' || value === null) return;
        for (const key of schema.required ?? [])
          if (!(key in value)) problems.push(`${name}: ${at}${key} missing from the example`);
        if (schema.additionalProperties === false)
          for (const key of Object.keys(value))
            if (!(key in (schema.properties ?? {}))) problems.push(`${name}: ${at}${key} is no field`);
      };
      required(media.schema, media.example, '');
    }
    expect(problems).toEqual([]);
  });

  it('the notes a route gives beside its schema stay out of the document', () => {
    // admins, errors, errorExamples, example and answerExample become answers and examples, not fields.
    const notes = ['x-notes', 'admins', 'errors', 'errorExamples', 'example', 'answerExample'];
    expect(operations.filter(({ op }) => notes.some((key) => key in op)).map(({ name }) => name)).toEqual([]);
  });
});
