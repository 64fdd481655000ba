import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A library loaded on its first use instead of at start: what a space may never use (a calendar
 * feed, SEPA files, password sign-in, MQTT over WebSocket) costs no memory until it does
 * (docs/PERFORMANCE.md). The library must offer a CommonJS entry (it is `require`d, so callers
 * stay synchronous).
 */
export function onFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}
