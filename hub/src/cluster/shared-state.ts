import type { ResourceSignals } from '../context.js';
import type { Cluster } from './cluster.js';

/** List totals kept per table (http/caches.ts): `touch` forgets a table's. */
export interface TotalsCache {
  touch(table: string): void;
}

/** The token cache (identity/authenticator.ts): `invalidate` forgets every cached token. */
export interface TokenCache {
  invalidate(): void;
}

/**
 * Cluster mode: what one hub forgets or notices, every hub does. Record texts need nothing (they
 * are keyed by lockVersion); list totals, the token cache and the live channels' resource
 * signals are sent over the bus, batched per turn of the event loop, and applied on the others
 * without being sent back. Lost messages cost at most the caches' own expiry (2 s, 5 s).
 */
export function shareInvalidations(
  cluster: Cluster,
  parts: { counts: TotalsCache; auth: TokenCache; signals: ResourceSignals },
): void {
  const { counts, auth, signals } = parts;
  let tables = new Set<string>();
  let ids = new Set<number>();
  let authChanged = false;
  let scheduled = false;
  let applying = false;
  const flush = () => {
    scheduled = false;
    if (tables.size > 0) cluster.send({ k: 'counts', tables: [...tables] });
    if (ids.size > 0) cluster.send({ k: 'signals', ids: [...ids] });
    if (authChanged) cluster.send({ k: 'auth' });
    tables = new Set();
    ids = new Set();
    authChanged = false;
  };
  const schedule = () => {
    if (applying || scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  const touch = counts.touch.bind(counts);
  counts.touch = (table: string) => {
    touch(table);
    if (applying) return;
    tables.add(table);
    schedule();
  };
  const invalidate = auth.invalidate.bind(auth);
  auth.invalidate = () => {
    invalidate();
    if (applying) return;
    authChanged = true;
    schedule();
  };
  signals.onChange((id) => {
    if (applying) return;
    ids.add(id);
    schedule();
  });

  const apply = (work: () => void) => {
    applying = true;
    try {
      work();
    } finally {
      applying = false;
    }
  };
  cluster.on('counts', (m) => {
    if (m.k === 'counts')
      apply(() => {
        for (const t of m.tables) touch(t);
      });
  });
  cluster.on('auth', () => apply(invalidate));
  cluster.on('signals', (m) => {
    if (m.k === 'signals')
      apply(() => {
        for (const id of m.ids) signals.changed(id);
      });
  });
}
