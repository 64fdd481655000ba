import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Text files worth compressing; images and fonts are compressed already. */
const compressible = /\.(js|mjs|css|html|svg|json|webmanifest|txt)$/;

/**
 * Writes a Brotli (`.br`) and a gzip (`.gz`) copy beside every text file of `dir` (recursively)
 * of at least `minBytes`, where the copy is smaller. The hub serves them to browsers that accept
 * them (hub/src/http/web-app.ts), so a phone on the space's Wi-Fi loads the app's scripts at about
 * a third of their size, and nothing is compressed per request. Answers the files compressed.
 */
export function precompress(dir: string, minBytes = 1024): string[] {
  const done: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      done.push(...precompress(path, minBytes));
      continue;
    }
    if (!compressible.test(name)) continue;
    const content = readFileSync(path);
    if (content.length < minBytes) continue;
    const br = brotliCompressSync(content, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
      },
    });
    const gz = gzipSync(content, { level: 9 });
    if (br.length < content.length) writeFileSync(`${path}.br`, br);
    if (gz.length < content.length) writeFileSync(`${path}.gz`, gz);
    done.push(path);
  }
  return done;
}
