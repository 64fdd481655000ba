import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendJson } from './list.js';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Answers below this many characters go as they are: compressing them gains little. */
export const compressFrom = 256 * 1024;

/**
 * Sends `value` as JSON. An answer of `compressFrom` characters or more goes Brotli- or
 * gzip-compressed when the client accepts it (`Vary: Accept-Encoding`), compressed on libuv's
 * thread pool so the event loop goes on meanwhile. For the few routes whose answers can run to
 * megabytes (the access preview of a change that reaches every member: 11-28 MB of JSON, about
 * a hundredth of that compressed); other answers are never compressed, so they cost no CPU for it.
 */
export async function sendLargeJson(request: FastifyRequest, reply: FastifyReply, value: unknown) {
  const json = JSON.stringify(value);
  if (json.length < compressFrom) return sendJson(reply, json);
  reply.header('vary', 'accept-encoding');
  const encoding = negotiate(request.headers['accept-encoding'] ?? '', ['br', 'gzip']);
  if (!encoding) return sendJson(reply, json);
  const body =
    encoding === 'br'
      ? // Quality 4: most of the gain at a small part of the highest quality's time.
        await brotli(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })
      : await gzipped(json, { level: 6 });
  return reply.type('application/json; charset=utf-8').header('content-encoding', encoding).send(body);
}
