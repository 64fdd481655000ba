import { createHmac } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { type CheckedUrl, refusalOf } from './url-safety.js';

/** The first bytes of a receiver's answer kept with each attempt (enough to see an error page). */
export const EXCERPT_BYTES = 1024;

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/**
 * The old `X-Makerspace-Signature`: `sha256=<hex>`, HMAC-SHA256 over "<timestamp>.<body>" keyed
 * with the secret's text. Deprecated: sent beside the Standard Webhooks headers for one release.
 */
export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * Standard Webhooks headers (standardwebhooks.com): `webhook-signature` is `v1,<base64>`, the
 * HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>" keyed with the base64 part of the
 * `whsec_` secret. Buffer's base64 decoder also reads the base64url of secrets made before
 * this format, so their key is the same bytes.
 */
export function standardWebhookHeaders(
  secret: string,
  id: string,
  timestamp: string,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}

export interface SendOptions {
  target: CheckedUrl;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** HUB_WEBHOOK_ALLOW_INSECURE: loopback receivers allowed (development, tests). */
  allowLoopback: boolean;
}

/**
 * POSTs one delivery. Connects only to the address that was checked (the host name still goes
 * into Host and TLS SNI), follows no redirect (node:http never does; a 3xx is a failure), and
 * gives up after `timeoutMs` in all (connect, answer and excerpt). Only a 2xx counts. Never throws.
 */
export function sendWebhook(options: SendOptions): Promise<SendResult> {
  const { target, body } = options;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { address, family } = target.address;
  // The one place the socket learns where to connect: the address is judged here once more, so
  // whatever produced it (a stale check, a rebinding answer), nothing leaves for a refused one.
  const pinned: LookupFunction = (_host, opts, callback) => {
    const why = refusalOf(address, options.allowLoopback);
    if (why) {
      const err = Object.assign(new Error(`refused to connect to ${address}: ${why}`), {
        code: 'EREFUSEDADDRESS',
      });
      callback(err, '', 0);
      return;
    }
    if ((opts as { all?: boolean })?.all) (callback as any)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const secure = target.url.protocol === 'https:';
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: Omit<SendResult, 'durationMs' | 'ok'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      resolve({ ...result, ok, durationMs: elapsed() });
    };
    const request = (secure ? https : http).request({
      method: 'POST',
      hostname: target.host,
      port: target.url.port || (secure ? 443 : 80),
      path: `${target.url.pathname}${target.url.search}`,
      headers: {
        ...options.headers,
        host: target.url.host,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'makerspace-hub-webhooks/1',
      },
      lookup: pinned,
      agent: false,
      ...(secure && !isIP(target.host) ? { servername: target.host } : {}),
      signal: options.signal,
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no complete answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (err) => finish({ statusCode: null, error: err.message, responseExcerpt: null }));
    request.on('response', (response) => {
      const statusCode = response.statusCode ?? null;
      const chunks: Buffer[] = [];
      let size = 0;
      const done2 = (error: string | null) => {
        const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
        const redirect = statusCode !== null && statusCode >= 300 && statusCode < 400;
        finish({
          statusCode,
          error: error ?? (redirect ? 'redirects are not followed' : null),
          responseExcerpt: excerpt || null,
        });
      };
      response.on('data', (chunk: Buffer) => {
        if (size >= EXCERPT_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= EXCERPT_BYTES) {
          done2(null);
          response.destroy();
        }
      });
      response.on('end', () => done2(null));
      response.on('error', (err) => done2(err.message));
      response.on('close', () => done2(null));
    });
    request.end(body);
  });
}
