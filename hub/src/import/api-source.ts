/**
 * Reading another server that speaks the commercial interface (the commercial service, or
 * another hub) through its public REST API: Bearer token, pages of `limit` records followed by
 * the `Link: <...>; rel="next"` header (else by `offset` while pages come back full), and rate
 * limits: a 429 (or 503) answer is waited out for its `Retry-After` and asked again.
 */

export interface SourceOptions {
  /** The API base, e.g. https://fabman.io/api/v1; a bare origin gets /api/v1 added. */
  url: string;
  token: string;
  /** Records per page (the interface allows up to 1000). */
  pageSize?: number;
  /** Longest single wait for a Retry-After, in ms (a longer one is cut to this). */
  maxWaitMs?: number;
  /** How many times one request is tried in all before the import gives up. */
  attempts?: number;
  /** Told of every wait (for the progress output). */
  onWait?: (ms: number, url: string) => void;
}

export class SourceError extends Error {}

/** The API base of `url`: without a trailing slash, with /api/v1 when only an origin is given. */
export function sourceBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SourceError(`--url: not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new SourceError(`--url: expected http:// or https://, got ${parsed.protocol}`);
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${path === '' ? '/api/v1' : path}`;
}

/** Retry-After as ms: delta-seconds or an HTTP date; 1 s when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number {
  if (!header) return 1000;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? 1000 : Math.max(0, date - now);
}

/** The rel="next" target of a Link header, if any. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;(.*)/.exec(part.trim());
    if (match && /rel="?next"?/.test(match[2])) return match[1];
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ApiSource {
  readonly base: string;
  private readonly pageSize: number;
  /** Requests made and 429/503 waits, for the summary. */
  readonly stats = { requests: 0, waits: 0 };

  constructor(private readonly options: SourceOptions) {
    this.base = sourceBase(options.url);
    this.pageSize = options.pageSize ?? 200;
  }

  /** GET one URL (absolute, or a path under the base) as JSON, waiting out rate limits. */
  async get(pathOrUrl: string): Promise<{ body: unknown; headers: Headers }> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${this.base}${pathOrUrl}`;
    const attempts = this.options.attempts ?? 20;
    let failures = 0;
    for (let attempt = 1; ; attempt++) {
      this.stats.requests++;
      let response: Response;
      try {
        response = await fetch(url, {
          headers: { authorization: `Bearer ${this.options.token}`, accept: 'application/json' },
        });
      } catch (err) {
        // No answer at all (refused, reset, DNS): a few tries over some seconds, then give up.
        failures++;
        if (failures >= 4 || attempt >= attempts) {
          const why = (err as { cause?: { code?: string; message?: string } }).cause;
          const cause = why?.code ?? why?.message ?? (err as Error).message;
          throw new SourceError(`${url}: cannot be reached (${cause})`);
        }
        await sleep(500 * 2 ** failures);
        continue;
      }
      if ((response.status === 429 || response.status === 503) && attempt < attempts) {
        await response.arrayBuffer().catch(() => undefined);
        const wait = Math.min(
          this.options.maxWaitMs ?? 120_000,
          retryAfterMs(response.headers.get('retry-after'), Date.now()),
        );
        this.stats.waits++;
        this.options.onWait?.(wait, url);
        await sleep(wait);
        continue;
      }
      if (response.status === 401 || response.status === 403)
        throw new SourceError(
          `${url}: ${response.status}: the token is not accepted (an admin's API token is needed)`,
        );
      if (!response.ok) throw new SourceError(`${url}: HTTP ${response.status}`);
      return { body: await response.json(), headers: response.headers };
    }
  }

  /** Every record of a list, page by page. `query` is added to the first page's URL. */
  async *list(
    path: string,
    query: Record<string, string | string[]> = {},
  ): AsyncGenerator<Record<string, unknown>> {
    let offset = 0;
    // Repeated parameters (`embed=key&embed=trainings`), as the interface reads them.
    const params = (extra: Record<string, string>) => {
      const p = new URLSearchParams();
      for (const [k, v] of Object.entries({ ...query, ...extra }))
        for (const one of Array.isArray(v) ? v : [v]) p.append(k, one);
      return p;
    };
    let url: string | undefined = `${this.base}${path}?${params({ limit: String(this.pageSize) })}`;
    while (url) {
      const { body, headers } = await this.get(url);
      if (!Array.isArray(body)) throw new SourceError(`${url}: expected a list`);
      for (const record of body) yield record as Record<string, unknown>;
      const next = nextLink(headers.get('link'));
      if (next) url = next;
      else if (body.length === this.pageSize && !headers.has('link')) {
        // A server without Link headers: the next offset while pages come back full.
        offset += this.pageSize;
        url = `${this.base}${path}?${params({ limit: String(this.pageSize), offset: String(offset) })}`;
      } else url = undefined;
    }
  }
}
