import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';

export const MAX_LIMIT = 1000;

/** Query parameters every list takes. */
export const pageParams = {
  limit: z.number().int().min(1).max(MAX_LIMIT).default(50).describe('Records per page (1-1000)'),
  offset: z.number().int().min(0).default(0).describe('Records to skip'),
  q: z.string().max(200).optional().describe('Search text'),
};

export const orderParam = z.enum(['asc', 'desc']).default('asc');

/** `embed=a&embed=b`: names of related records to put under `_embedded`. */
export function embedParam<const T extends readonly [string, ...string[]]>(names: T) {
  return z
    .array(z.enum(names))
    .default([])
    .describe(`Related records to embed: ${names.join(', ')}`);
}

export interface Page {
  limit: number;
  offset: number;
  total: number;
}

/**
 * Sends a list as a bare JSON array with `X-Total-Count`, and an RFC 8288 `Link` rel="next"
 * only when another page exists (no Link header at all on the last page).
 */
export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page,
  records: unknown[] | string,
  publicUrl?: string,
  /** With pre-serialised records (a JSON array text): how many it holds. */
  count?: number,
) {
  reply.header('x-total-count', String(page.total));
  const shown = typeof records === 'string' ? (count ?? 0) : records.length;
  const nextOffset = page.offset + shown;
  if (shown > 0 && nextOffset < page.total) {
    const base = publicUrl ?? `${request.protocol}://${request.host}`;
    const url = new URL(request.url, base);
    url.searchParams.delete('offset');
    url.searchParams.append('offset', String(nextOffset));
    if (!url.searchParams.has('limit')) url.searchParams.set('limit', String(page.limit));
    const origin = publicUrl ?? url.origin;
    reply.header('link', `<${origin}${url.pathname}${url.search}>; rel="next"`);
  }
  if (typeof records === 'string') return sendJson(reply, records);
  return reply.send(records);
}

/** Sends a body that is JSON text already (cached record texts), as it is. */
export function sendJson(reply: FastifyReply, json: string) {
  return reply
    .type('application/json; charset=utf-8')
    .serializer((s) => s as string)
    .send(json);
}

/** Escapes LIKE wildcards in user text and wraps it for a contains-search on lower(column). */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
