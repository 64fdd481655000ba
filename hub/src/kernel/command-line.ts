/**
 * Options of `parseArgs` (node:util) that each take a string (`--url URL`), by name:
 * `options: { ...stringOptions('url', 'token'), 'dry-run': { type: 'boolean', default: false } }`.
 */
export function stringOptions<const N extends string>(...names: N[]): Record<N, { type: 'string' }> {
  return Object.fromEntries(names.map((name) => [name, { type: 'string' }])) as Record<N, { type: 'string' }>;
}
