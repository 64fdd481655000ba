import { isIP } from 'node:net';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

/**
 * Limits of the HTTP server (docs/OPERATIONS.md, "HTTP limits"). A client that sends its request
 * slowly (one byte a minute) is cut off after `requestTimeoutMs`; one that never finishes its
 * headers after `headersTimeoutMs`. Responses are not limited: a switch-on may wait for its agent
 * and an event stream stays open.
 */
export interface HttpLimits {
  /** Largest request body (JSON or form), bytes. */
  bodyLimit: number;
  /** Time to receive a whole request, headers and body. */
  requestTimeoutMs: number;
  /** Time to receive the request headers. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
}

export const defaultHttpLimits: HttpLimits = {
  bodyLimit: 1024 * 1024,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
};

/** Fastify's server options for these limits. */
export function serverOptions(limits: HttpLimits) {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    bodyLimit: limits.bodyLimit,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two timeouts on this interval (30 s by default, too coarse for 10 s).
    http: {
      headersTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  };
}

const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * HUB_TRUST_PROXY: a comma-separated list of addresses or CIDR ranges (or `loopback`,
 * `linklocal`, `uniquelocal`) of reverse proxies whose X-Forwarded-* headers count. Empty (the
 * default): no forwarded header counts. Returns the problems, if any.
 */
export function parseTrustProxy(text: string | undefined): { proxies: string[]; problems: string[] } {
  const proxies: string[] = [];
  const problems: string[] = [];
  for (const raw of (text ?? '').split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const okBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if ((family && okBits && extra === undefined) || (proxyNames.has(entry) && bits === undefined)) {
      proxies.push(entry);
    } else {
      problems.push(`"${entry}" is not an address, a CIDR range, loopback, linklocal or uniquelocal`);
    }
  }
  return { proxies, problems };
}

/**
 * The origin of every absolute URL the hub writes (Link headers, calendar URLs, stickers,
 * sign-in links): HUB_PUBLIC_URL when set; otherwise the request's own, where the Host (or,
 * from a trusted proxy only, X-Forwarded-Host and -Proto) is what the client used.
 */
export function publicOrigin(publicUrl: string | undefined, request: FastifyRequest): string {
  return (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}

type LogArgs = Parameters<FastifyBaseLogger['info']>;

/**
 * A request's logger (`request.log`), made when first used: Fastify makes a child of the hub's
 * logger with the request id for every request, and most requests log nothing.
 */
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: object,
  ) {}

  private get log(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.log.level;
  }

  set level(level: string) {
    this.log.level = level;
  }

  fatal(...args: LogArgs): void {
    this.log.fatal(...args);
  }
  error(...args: LogArgs): void {
    this.log.error(...args);
  }
  warn(...args: LogArgs): void {
    this.log.warn(...args);
  }
  info(...args: LogArgs): void {
    this.log.info(...args);
  }
  debug(...args: LogArgs): void {
    this.log.debug(...args);
  }
  trace(...args: LogArgs): void {
    this.log.trace(...args);
  }
  silent(...args: LogArgs): void {
    this.log.silent(...args);
  }
  child(bindings: Record<string, unknown>, options?: object): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: request loggers made when first used (RequestLogger). */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: object,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
