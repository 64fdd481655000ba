import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BridgeConfig, Logger } from '@makerspace/shared/agent';
import { writeFileAtomic } from './atomic-file.js';
import type { LogQueue } from './log-queue.js';
import type { RelayController } from './relay.controller.js';

export interface DoorHoldOptions {
  relay: RelayController;
  /** The hub's config as saved (bridge-config.store.ts): `unlockUntil` names the window's end. */
  config: {
    readonly current: BridgeConfig | null;
    onChange(listener: (c: BridgeConfig) => void): () => void;
  };
  queue: LogQueue;
  dataDir: string;
  logger: Logger;
  now?: () => Date;
}

/** The hold in progress, kept on disk so a restart continues it (and its log). */
interface Hold {
  id: string;
  until: string;
  unlockMode: string;
}

const HOLD_FILE = 'door-hold.json';
// setTimeout's longest delay; a longer window is checked again then.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Doors held unlocked (docs/PROTOCOL.md, "Door modes"): while the saved config's `unlockUntil`
 * lies ahead, the relay stays on; at that time the agent relocks by itself, so the window holds
 * while the hub is away and across a restart (the config and the hold are on disk). A config
 * without `unlockUntil` (the hub's "lock now", a holiday) relocks at once. The hold is one
 * resource log: an `allowed` log without a member when it begins, stopped when it ends
 * (`automatic` at the window's end, `normal` when the hub ended it).
 */
export class DoorHoldFeature {
  private hold: Hold | null = null;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  private readonly file: string;

  constructor(private readonly options: DoorHoldOptions) {
    this.now = options.now ?? (() => new Date());
    this.file = join(options.dataDir, HOLD_FILE);
  }

  async start(): Promise<void> {
    if (this.options.relay.controlType !== 'door') return;
    this.hold = await this.loadHold();
    this.unsubscribe = this.options.config.onChange(() => void this.evaluate());
    await this.evaluate();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // The hold stays on disk: the next start continues it, or ends it if the window has passed.
    await this.chain;
  }

  /** The hold in progress, if any (tests). */
  get current(): Hold | null {
    return this.hold;
  }

  /** Holds or relocks as the saved config says now. */
  evaluate(): Promise<void> {
    const step = this.chain.then(() => this.evaluateNow());
    this.chain = step.catch((err) =>
      this.options.logger.error({ err: (err as Error).message }, 'door hold: switching failed'),
    );
    return this.chain as Promise<void>;
  }

  private async evaluateNow(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const config = this.options.config.current;
    const until = config?.unlockUntil;
    const at = this.now();
    if (until && Date.parse(until) > at.getTime()) {
      const unlockMode = config?.unlockMode ?? 'openingHours';
      if (!this.hold) {
        this.hold = { id: randomUUID(), until, unlockMode };
        await this.options.queue.append({
          kind: 'log',
          id: this.hold.id,
          type: 'allowed',
          createdAt: at.toISOString(),
          sessionId: this.hold.id,
          memberId: null,
          notes: `Door held unlocked (${unlockMode}) until ${until}`,
          metadata: { unlockMode, unlockUntil: until },
        });
        this.options.logger.info({ until, unlockMode }, 'door held unlocked');
      } else if (this.hold.until !== until) {
        this.options.logger.info({ until }, 'door unlock window moved');
      }
      this.hold = { ...this.hold, until, unlockMode };
      await writeFileAtomic(this.file, JSON.stringify(this.hold));
      if (!this.options.relay.held) await this.options.relay.hold(this.hold.id);
      const wait = Math.min(Date.parse(until) - at.getTime(), MAX_TIMER_MS);
      this.timer = setTimeout(() => void this.evaluate(), Math.max(0, wait));
      return;
    }
    if (!this.hold) return;
    // The window's end (or a stale one found at start) is automatic; the hub taking it back is not.
    const ended = Date.parse(this.hold.until) <= at.getTime();
    const hold = this.hold;
    await this.options.queue.append({
      kind: 'stop',
      id: randomUUID(),
      sessionId: hold.id,
      stopType: ended ? 'automatic' : 'normal',
      stoppedAt: (ended ? new Date(Date.parse(hold.until)) : at).toISOString(),
    });
    this.hold = null;
    await rm(this.file, { force: true });
    await this.options.relay.release();
    this.options.logger.info({ reason: ended ? 'window ended' : 'hub ended it' }, 'door relocked');
  }

  private async loadHold(): Promise<Hold | null> {
    try {
      const saved = JSON.parse(await readFile(this.file, 'utf8')) as Hold;
      return typeof saved.id === 'string' && typeof saved.until === 'string' ? saved : null;
    } catch {
      return null;
    }
  }
}
