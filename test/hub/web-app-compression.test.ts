import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWebApp } from '../../hub/src/http/web-app.js';
import { precompress } from '../../web/precompress.js';
import { tempDir } from '../support/processes.js';

/** The web app's built texts go compressed to browsers that accept it; nothing is compressed per request. */
describe('the web app’s files, compressed at build time', () => {
  const app = Fastify();
  const script = `export const lines = [${Array.from({ length: 400 }, (_, i) => `'line ${i} of the app'`).join(', ')}];\n`;
  const small = 'export const x = 1;\n';
  let compressed: string[];

  beforeAll(async () => {
    const dir = tempDir('web-dist-');
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Makerspace</title>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), script);
    writeFileSync(join(dir, 'assets', 'tiny-abc123.js'), small);
    writeFileSync(join(dir, 'assets', 'logo-abc123.png'), Buffer.alloc(4096, 7));
    compressed = precompress(dir);
    await serveWebApp(app, dir);
    await app.ready();
  });
  afterAll(() => app.close());

  const get = (url: string, encoding?: string) =>
    app.inject({ method: 'GET', url, headers: encoding ? { 'accept-encoding': encoding } : {} });

  it('compresses the texts large enough to gain, not images or tiny files', () => {
    expect(compressed.map((p) => p.split('/').at(-1))).toEqual(['index-abc123.js']);
  });

  it('sends Brotli or gzip as the browser accepts, and the plain file otherwise', async () => {
    const br = await get('/assets/index-abc123.js', 'gzip, deflate, br');
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(script.length / 4);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-type']).toMatch(/javascript/);

    const gz = await get('/assets/index-abc123.js', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(script);

    const plain = await get('/assets/index-abc123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);

    const tiny = await get('/assets/tiny-abc123.js', 'br');
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.body).toBe(small);
  });
});
