import type { ListCounts, RecordTexts } from '../context.js';

/**
 * Serialised records by table, id and lockVersion. Every write bumps a record's lockVersion, so
 * a cached text is never stale: a changed record simply has a new key. Lists read only ids and
 * versions from the database and build the body from these texts (the hot path of GET lists).
 */
export class RecordCache implements RecordTexts {
  private readonly entries = new Map<string, string>();

  constructor(private readonly max = 50_000) {}

  get(table: string, id: number, version: number): string | undefined {
    return this.entries.get(`${table}:${id}:${version}`);
  }

  set(table: string, id: number, version: number, json: string): void {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(`${table}:${id}:${version}`, json);
  }
}

/**
 * List totals (X-Total-Count) per table and query. A write to the table through this hub
 * forgets them at once; writes by another hub process show within `ttlMs`.
 */
export class CountCache implements ListCounts {
  private readonly generations = new Map<string, number>();
  private readonly entries = new Map<string, { value: number; generation: number; at: number }>();

  constructor(private readonly ttlMs = 2_000) {}

  async count(table: string, key: string, compute: () => Promise<number>): Promise<number> {
    const generation = this.generations.get(table) ?? 0;
    const cacheKey = `${table}|${key}`;
    const hit = this.entries.get(cacheKey);
    const at = performance.now();
    if (hit && hit.generation === generation && at - hit.at < this.ttlMs) return hit.value;
    const value = await compute();
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(cacheKey, { value, generation, at });
    return value;
  }

  /** The table changed: its totals must be counted again. */
  touch(table: string): void {
    this.generations.set(table, (this.generations.get(table) ?? 0) + 1);
  }
}

/**
 * The JSON array of a page of records, given their ids and versions in page order: cached texts
 * where present, the rest fetched in one query and cached.
 */
export async function recordsJson<Row extends { id: number; lockVersion: number }>(
  cache: RecordTexts,
  table: string,
  keys: { id: number; lockVersion: number }[],
  fetch: (ids: number[]) => Promise<Row[]>,
  toJson: (row: Row) => string,
): Promise<string> {
  const texts: (string | undefined)[] = keys.map((k) => cache.get(table, k.id, k.lockVersion));
  const missing = keys.filter((_, i) => texts[i] === undefined).map((k) => k.id);
  if (missing.length > 0) {
    const fetched = new Map<number, string>();
    for (const row of await fetch(missing)) {
      const json = toJson(row);
      cache.set(table, row.id, row.lockVersion, json);
      fetched.set(row.id, json);
    }
    keys.forEach((k, i) => {
      // A record changed between the two reads is shown as it is now; a deleted one is left out.
      texts[i] ??= fetched.get(k.id);
    });
  }
  return `[${texts.filter((t) => t !== undefined).join(',')}]`;
}
