import type { z } from 'zod';
import { badRequest } from '../errors.js';

type AnySchema = z.ZodType & { def: any };

/** Unwraps optional/nullable/default wrappers to the schema that says what a value is. */
function unwrap(schema: AnySchema): { base: AnySchema; nullable: boolean } {
  let s = schema;
  let nullable = false;
  for (;;) {
    const t = s.def.type;
    if (t === 'nullable') nullable = true;
    if (
      t === 'optional' ||
      t === 'nullable' ||
      t === 'default' ||
      t === 'prefault' ||
      t === 'readonly' ||
      t === 'catch'
    ) {
      s = s.def.innerType;
    } else if (t === 'pipe') {
      s = s.def.in;
    } else {
      return { base: s, nullable };
    }
  }
}

/** Integers in canonical decimal: no sign tricks, no leading zeros, no hex, no exponent. */
const integerPattern = /^-?(0|[1-9][0-9]{0,15})$/;
/** Record ids in paths: canonical positive decimal (`%201`, `0x10` and `1e3` are not ids). */
const idPattern = /^[1-9][0-9]{0,15}$/;
const decimalPattern = /^-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,20})?$/;

export type Source = 'query' | 'form' | 'params';
const sourceNames: Record<Source, string> = { query: 'query', form: 'body', params: 'path' };

function invalid(source: Source, key: string, message: string): never {
  const path = key;
  throw badRequest(`${sourceNames[source]}.${path}: ${message}`, { validation: [{ path, message }] });
}

function coerceScalar(
  base: AnySchema,
  nullable: boolean,
  value: unknown,
  source: Source,
  key: string,
): unknown {
  if (typeof value !== 'string') return value;
  const t = base.def.type;
  if (value === '' && source === 'form') return nullable ? null : undefined;
  if (t === 'number' || t === 'int' || t === 'bigint') {
    if (nullable && value === 'null') return null;
    if ((base as any).isInt || t === 'int' || t === 'bigint') {
      if (source === 'params' ? !idPattern.test(value) : !integerPattern.test(value))
        invalid(
          source,
          key,
          source === 'params' ? 'expected an id (a positive whole number)' : 'expected a whole number',
        );
      return Number(value);
    }
    if (!decimalPattern.test(value)) invalid(source, key, 'expected a number');
    return Number(value);
  }
  if (t === 'boolean') {
    if (value === 'true' || value === '1' || value === 'on') return true;
    if (value === 'false' || value === '0' || value === 'off') return false;
    return value;
  }
  if (t === 'null' && value === 'null') return null;
  return value;
}

/** Sets a key as an own property, whatever its name (`__proto__` included). */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    out[key] = value;
  }
}

/** What one declared field is: worked out once per schema, not per request. */
interface FieldPlan {
  base: AnySchema;
  nullable: boolean;
  /** An array field: its element's schema. */
  element?: { base: AnySchema; nullable: boolean };
}

const plans = new WeakMap<object, Map<string, FieldPlan> | null>();

/** The fields of an object schema (null: not an object schema, nothing to coerce). */
function planOf(schema: object): Map<string, FieldPlan> | null {
  let plan = plans.get(schema);
  if (plan !== undefined) return plan;
  const { base } = unwrap(schema as AnySchema);
  plan = null;
  if (base.def.type === 'object') {
    plan = new Map();
    for (const [key, field] of Object.entries(base.def.shape as Record<string, AnySchema>)) {
      const { base: fieldBase, nullable } = unwrap(field);
      plan.set(key, {
        base: fieldBase,
        nullable,
        element: fieldBase.def.type === 'array' ? unwrap(fieldBase.def.element) : undefined,
      });
    }
  }
  plans.set(schema, plan);
  return plan;
}

/**
 * The one layer that reads query strings, path parameters and form-encoded bodies (where every
 * value is a string, and a repeated key is an array) into the types the route's zod schema
 * expects: numbers (canonical decimal only, ids as `^[1-9][0-9]{0,15}$`), booleans, arrays for
 * array fields, and the last value of a repeated scalar (clients re-send first-page parameters
 * with the next link, so the last value wins). Query and path keys the schema does not declare
 * are dropped whatever their name (`toString`, `__proto__`); form bodies keep them so that a
 * create can name the unknown field. JSON bodies are never coerced.
 */
export function coerceBySchema(schema: unknown, input: unknown, source: Source): unknown {
  if (
    !schema ||
    typeof schema !== 'object' ||
    typeof input !== 'object' ||
    input === null ||
    Array.isArray(input)
  )
    return input;
  const plan = planOf(schema);
  if (!plan) return input;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    const raw = (input as Record<string, unknown>)[key];
    const field = plan.get(key);
    if (!field) {
      if (source === 'form') put(out, key, raw);
      continue;
    }
    const { element } = field;
    if (element) {
      const list = Array.isArray(raw) ? raw : [raw];
      put(
        out,
        key,
        list.map((v) => coerceScalar(element.base, element.nullable, v, source, key)),
      );
      continue;
    }
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const coerced = coerceScalar(field.base, field.nullable, value, source, key);
    if (coerced !== undefined) put(out, key, coerced);
  }
  return out;
}

/**
 * Create bodies are strict (an unknown field answers 400), but clients of the Fabman interface
 * send the `lockVersion` they read with every write, creates too (its published Python client on
 * `POST /members/{id}/credits`). A strict POST body that declares no `lockVersion` takes it and
 * ignores it; every other unknown field keeps its 400.
 */
export function dropCreateLockVersion(schema: unknown, body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('lockVersion' in body)) return body;
  const { base } = unwrap(schema as AnySchema);
  if (base.def.type !== 'object' || base.def.catchall?.def?.type !== 'never') return body;
  if ('lockVersion' in base.def.shape) return body;
  const { lockVersion: _ignored, ...rest } = body as Record<string, unknown>;
  return rest;
}
