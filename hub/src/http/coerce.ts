import type { z } from 'zod';

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

const numberPattern = /^-?\d+(\.\d+)?$/;

function coerceScalar(base: AnySchema, nullable: boolean, value: unknown, source: 'query' | 'form'): unknown {
  if (typeof value !== 'string') return value;
  const t = base.def.type;
  if (value === '' && source === 'form') return nullable ? null : undefined;
  if (t === 'number' || t === 'int' || t === 'bigint')
    return numberPattern.test(value) ? Number(value) : value;
  if (t === 'boolean') {
    if (value === 'true' || value === '1' || value === 'on') return true;
    if (value === 'false' || value === '0' || value === 'off') return false;
    return value;
  }
  if (t === 'null' && value === 'null') return null;
  return value;
}

/**
 * Turns query strings and form-encoded bodies (where every value is a string, and a repeated
 * key is an array) into the types the route's zod schema expects: numbers, booleans, arrays
 * for array fields, and the last value of a repeated scalar (clients re-send first-page
 * parameters with the next link, so the last value wins). JSON bodies are never coerced.
 */
export function coerceBySchema(schema: unknown, input: unknown, source: 'query' | 'form'): unknown {
  if (!schema || typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const { base } = unwrap(schema as AnySchema);
  if (base.def.type !== 'object') return input;
  const shape = base.def.shape as Record<string, AnySchema>;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(input as Record<string, unknown>)) {
    const field = shape[key];
    if (!field) {
      out[key] = raw;
      continue;
    }
    const { base: fieldBase, nullable } = unwrap(field);
    if (fieldBase.def.type === 'array') {
      const element = unwrap(fieldBase.def.element);
      const list = Array.isArray(raw) ? raw : [raw];
      out[key] = list.map((v) => coerceScalar(element.base, element.nullable, v, source));
      continue;
    }
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const coerced = coerceScalar(fieldBase, nullable, value, source);
    if (coerced !== undefined) out[key] = coerced;
  }
  return out;
}
