import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from './precompress.ts';

const outDir = fileURLToPath(new URL('dist', import.meta.url));

// Preact's JSX, built to web/dist, which the hub serves at `/` (hub/src/http/web-app.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: {
    alias: { react: 'preact/compat', 'react-dom': 'preact/compat' },
  },
  // Brotli and gzip copies of the built texts, served to browsers that accept them.
  plugins: [{ name: 'precompress', apply: 'build', closeBundle: () => void precompress(outDir) }],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
  },
  server: {
    // `npm run dev -w web` next to a hub on :8080.
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
