import { publicOrigin } from './server-options.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SelectQueryBuilder, Simplify } from 'kysely';
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
    // The request's own path and query, with the next offset (and the limit, when defaulted).
    const at = request.url.indexOf('?');
    const path = at === -1 ? request.url : request.url.slice(0, at);
    const params = new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1));
    params.delete('offset');
    params.append('offset', String(nextOffset));
    if (!params.has('limit')) params.set('limit', String(page.limit));
    const origin = publicOrigin(publicUrl, request);
    reply.header('link', `<${origin}${path}?${params}>; rel="next"`);
  }
  if (typeof records === 'string') return sendJson(reply, records);
  return reply.send(records);
}

/**
 * Counts the rows of a filtered query and reads one page of them (`ordered` picks the columns and
 * the order; the page's limit and offset are applied here), for sendPage.
 */
export async function queryPage<DB, TB extends keyof DB, O, Row>(
  base: SelectQueryBuilder<DB, TB, O>,
  page: { limit: number; offset: number },
  ordered: (base: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, Row>,
): Promise<Page & { rows: Simplify<Row>[] }> {
  const { limit, offset } = page;
  const [{ total }] = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .$castTo<{ total: number }>()
    .execute();
  const rows = await ordered(base).limit(limit).offset(offset).execute();
  return { limit, offset, total: Number(total), rows };
}

/** Sends a body that is JSON text already (cached record texts), as it is. */
export function sendJson(reply: FastifyReply, json: string) {
  return reply
    .type('application/json; charset=utf-8')
    .serializer((s) => s as string)
    .send(json);
}
