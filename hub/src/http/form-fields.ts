/**
 * Form-encoded bodies name nested fields with brackets or dots (`currentSession[id]`,
 * `keys[0][type]`, `charge.price`): they become the objects and lists a JSON body would carry.
 */
export function nestFormFields(flat: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(flat)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const path = key
      .replace(/\]/g, '')
      .split(/\[|\./)
      .map((p) => (p === '' ? '0' : p));
    if (path.some((p) => p === '__proto__' || p === 'constructor' || p === 'prototype')) continue;
    let at: Record<string, unknown> = root;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) {
        // A list field sent flat (`keys=...` twice) keeps its list.
        Object.defineProperty(at, part, {
          value: path.length === 1 ? raw : value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        break;
      }
      const next = Object.hasOwn(at, part) ? at[part] : undefined;
      if (typeof next !== 'object' || next === null) {
        const child: Record<string, unknown> = {};
        Object.defineProperty(at, part, {
          value: child,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        at = child;
      } else {
        at = next as Record<string, unknown>;
      }
    }
  }
  return listify(root) as Record<string, unknown>;
}

/** Objects whose keys are all 0, 1, 2, ... become lists in that order. */
function listify(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, listify(v)] as const);
  if (entries.length > 0 && entries.every(([k]) => /^\d{1,3}$/.test(k))) {
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}
