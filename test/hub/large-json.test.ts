import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressFrom, sendLargeJson } from '../../hub/src/http/large-json.js';

/** Answers that can run to megabytes (the access preview) go compressed to clients that accept it. */
describe('large JSON answers', () => {
  const app = Fastify();
  const big = {
    changes: Array.from({ length: 4000 }, (_, i) => ({
      member: i,
      memberName: `Member ${i}`,
      loses: [{ from: '2026-03-03T08:00:00.000Z', until: '2026-03-03T20:00:00.000Z' }],
    })),
  };
  const small = { changes: [{ member: 1 }] };

  beforeAll(async () => {
    app.get('/big', (request, reply) => sendLargeJson(request, reply, big));
    app.get('/small', (request, reply) => sendLargeJson(request, reply, small));
    await app.ready();
  });
  afterAll(() => app.close());

  const get = (url: string, encoding?: string) =>
    app.inject({
      method: 'GET',
      url,
      headers: encoding === undefined ? {} : { 'accept-encoding': encoding },
    });

  it('compresses a large answer as the client prefers, and decodes to the same JSON', async () => {
    const json = JSON.stringify(big);
    expect(json.length).toBeGreaterThan(compressFrom);
    const br = await get('/big', 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(br.rawPayload.length).toBeLessThan(json.length / 10);
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(big);

    const gz = await get('/big', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toEqual(big);
  });

  it('sends it plain to a client that accepts no compression, and small answers always plain', async () => {
    for (const encoding of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
      const plain = await get('/big', encoding);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.json()).toEqual(big);
    }
    const tiny = await get('/small', 'br');
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.headers.vary).toBeUndefined();
    expect(tiny.json()).toEqual(small);
  });
});
