import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Unit tests run against the sources; end-to-end tests spawn the built programs (npm test builds first).
    alias: {
      '@makerspace/shared/agent': fileURLToPath(new URL('./shared/src/agent.ts', import.meta.url)),
      '@makerspace/shared': src('shared'),
      '@makerspace/hardware': src('hardware'),
      '@makerspace/agent': src('agent'),
      '@makerspace/hub': src('hub'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
