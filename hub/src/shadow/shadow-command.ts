import type { AccessPolicy } from '../access/policy.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/crud.js';
import { defaultIdTranslation, type IdTranslationFor } from './id-map.js';
import { reportText, runShadow, ShadowSourceError, shadowReport, sourceName } from './shadow.js';
import { firstAccount } from './shadow.repository.js';

export interface ShadowCommand {
  db: Db;
  policy: AccessPolicy;
  clock: Clock;
  url: string;
  token: string;
  since?: string;
  account?: number;
  /** Minutes between runs; none: one run. */
  everyMinutes?: number;
  ids?: IdTranslationFor;
  out(text: string): void;
  /** Ends the periodic runs (the CLI's SIGINT/SIGTERM). */
  stopped?: AbortSignal;
}

/**
 * `makerspace-hub shadow`: one comparison run and its report, or (`--every`) one run every few
 * minutes until stopped. A run the other server fails (unreachable, 5xx) is reported and the
 * next one tries again; a refused token ends the command.
 */
export async function shadowCommand(c: ShadowCommand): Promise<number> {
  const account = c.account ?? (await firstAccount(c.db));
  if (account === undefined) {
    c.out('no account in this database: import first (docs/MOVING.md)\n');
    return 2;
  }
  const ids = await (c.ids ?? defaultIdTranslation)(c.db, account, sourceName(c.url));
  for (;;) {
    try {
      const run = await runShadow({
        db: c.db,
        policy: c.policy,
        clock: c.clock,
        account,
        source: { url: c.url, token: c.token },
        since: c.since,
        ids,
      });
      c.out(`${c.clock.now().toISOString()} ${reportText(await shadowReport(c.db, account, 50), run)}`);
    } catch (err) {
      if (!(err instanceof ShadowSourceError)) throw err;
      c.out(`${c.clock.now().toISOString()} ${err.message}\n`);
      if (/refused the token/.test(err.message) || !c.everyMinutes) return 1;
    }
    if (!c.everyMinutes) return 0;
    const wait = c.everyMinutes * 60_000;
    const go = await new Promise<boolean>((resolve) => {
      if (c.stopped?.aborted) return resolve(false);
      const timer = setTimeout(() => resolve(true), wait);
      c.stopped?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!go) return 0;
  }
}
