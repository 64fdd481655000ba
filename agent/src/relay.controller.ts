import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Relay } from '@makerspace/hardware';
import type { Logger, RelayStateMessage, StopType } from '@makerspace/shared/agent';
import { writeFileAtomic } from './atomic-file.js';
import type { LogQueue } from './log-queue.js';

/** A machine session running on this agent. */
export interface MachineSession {
  id: string;
  memberId: number | null;
  /** offlineKeyHash of the card that started it, so the same card can stop it. */
  keyHash: string | null;
  startedAt: string;
  /** Seconds; null for no limit. */
  maxDuration: number | null;
  offline: boolean;
}

export interface StartSession {
  id: string;
  memberId?: number | null;
  keyHash?: string | null;
  maxDuration?: number | null;
  offline?: boolean;
}

export interface RelayControllerOptions {
  relay: Relay;
  controlType: 'door' | 'machine';
  queue: LogQueue;
  /** Where the running session is kept, so a crash still ends it on the hub after restart. */
  dataDir: string;
  logger: Logger;
  now?: () => Date;
  /** How often a running session checks the relay's link (a smart plug that stops answering). */
  hardwareCheckMs?: number;
}

const SESSION_FILE = 'session.json';

/** What the machine's inputs add to its sessions (idle.feature.ts, inputs.feature.ts). */
export interface SessionHooks {
  /** Why a session may not start now (an open interlock), or null. */
  refuseStart?(): string | null;
  /** At maxDuration: true when the hook ends the session itself later (a busy machine's grace). */
  deferMaxDuration?(session: MachineSession): boolean;
  /** Seconds the session was idle, reported with its stop; undefined when not known. */
  idleSeconds?(session: MachineSession, stoppedAt: Date): number | undefined;
}

/**
 * Drives the relay for the resource: doors pulse open, machines hold a session.
 *
 * Every switch goes through one queue, so commands and card taps arriving together switch the
 * relay in order and each sees the state the previous one left. A machine session that ends here
 * (switch-off, maxDuration, takeover, tap to stop, shutdown) becomes a `stop` item in the log queue.
 * The relay goes off when the controller starts and stops (fail-safe, design section 9).
 */
export class RelayController {
  private session: MachineSession | null = null;
  private sessionTimer: NodeJS.Timeout | null = null;
  private pulseTimer: NodeJS.Timeout | null = null;
  private doorSessionId: string | null = null;
  /** A door held unlocked (door-hold.feature.ts): pulses end without switching off. */
  private heldOpen = false;
  private since: string;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(state: RelayStateMessage) => void>();
  private readonly now: () => Date;
  private hardwareTimer: NodeJS.Timeout | null = null;
  private hooks: SessionHooks = {};

  constructor(private readonly options: RelayControllerOptions) {
    this.now = options.now ?? (() => new Date());
    this.since = this.now().toISOString();
  }

  /** The relay driver's link to its hardware: true, or what is wrong (the watchdog's check). */
  hardwareHealthy(): true | string {
    return this.options.relay.healthy?.() ?? true;
  }

  /** Opens the relay (off) and ends a session a crash left behind. */
  async start(): Promise<void> {
    await this.options.relay.open();
    await this.options.relay.set('off');
    this.since = this.now().toISOString();
    await this.recoverSession();
    this.emit();
    this.hardwareTimer = setInterval(() => this.checkHardware(), this.options.hardwareCheckMs ?? 1000);
    this.hardwareTimer.unref();
  }

  /** Ends a running session (stopType 'offline': the bridge went away) and switches off. */
  async stop(): Promise<void> {
    if (this.hardwareTimer) clearInterval(this.hardwareTimer);
    this.hardwareTimer = null;
    await this.run(async () => {
      this.clearTimers();
      this.heldOpen = false;
      if (this.session) await this.endSessionLocked('offline');
      await this.switch('off');
    });
    await this.options.relay.close();
  }

  /** Why a machine session may not start now (an open interlock), or null. */
  startRefusal(): string | null {
    return this.hooks.refuseStart?.() ?? null;
  }

  /** Set once at wiring, before start(). */
  setSessionHooks(hooks: SessionHooks): void {
    this.hooks = hooks;
  }

  get controlType(): 'door' | 'machine' {
    return this.options.controlType;
  }

  get currentSession(): MachineSession | null {
    return this.session;
  }

  state(): RelayStateMessage {
    const sessionId =
      this.options.controlType === 'machine' ? (this.session?.id ?? null) : this.doorSessionId;
    const relay = this.options.relay.get();
    return { relay, since: this.since, sessionId: relay === 'on' ? sessionId : null };
  }

  onStateChange(listener: (state: RelayStateMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Switches on for `seconds`, then off. A pulse during a pulse extends it. */
  pulse(seconds: number, sessionId: string | null = null): Promise<RelayStateMessage> {
    return this.run(async () => {
      if (this.session) throw new Error(`a machine session (${this.session.id}) is running`);
      if (this.pulseTimer) clearTimeout(this.pulseTimer);
      this.doorSessionId = sessionId;
      await this.switch('on');
      this.pulseTimer = setTimeout(() => {
        this.pulseTimer = null;
        this.run(async () => {
          if (this.heldOpen) return;
          this.doorSessionId = null;
          await this.switch('off');
        }).catch((err) =>
          this.options.logger.error({ err: err.message }, 'relay: switching off after the pulse failed'),
        );
      }, seconds * 1000);
      return this.state();
    });
  }

  /**
   * Doors: holds the relay on until release() (a door unlocked for a window the hub set). Taps
   * during the hold still pulse; their end leaves the relay on.
   */
  hold(sessionId: string): Promise<RelayStateMessage> {
    return this.run(async () => {
      if (this.session) throw new Error(`a machine session (${this.session.id}) is running`);
      this.heldOpen = true;
      this.doorSessionId = sessionId;
      await this.switch('on');
      return this.state();
    });
  }

  /** Ends a hold: the relay goes off unless a pulse still runs (it switches off at its end). */
  release(): Promise<RelayStateMessage> {
    return this.run(async () => {
      if (!this.heldOpen) return this.state();
      this.heldOpen = false;
      if (!this.pulseTimer) {
        this.doorSessionId = null;
        await this.switch('off');
      }
      return this.state();
    });
  }

  /** True while a door is held unlocked. */
  get held(): boolean {
    return this.heldOpen;
  }

  /** Machines: starts (or takes over) a session and holds the relay on. */
  startSession(start: StartSession): Promise<RelayStateMessage> {
    return this.run(async () => {
      if (this.session?.id === start.id) return this.state();
      const refused = this.hooks.refuseStart?.() ?? null;
      if (refused !== null) throw new Error(refused);
      if (this.session) await this.endSessionLocked('takeover', { keepRelay: true });
      if (this.pulseTimer) clearTimeout(this.pulseTimer);
      this.pulseTimer = null;
      const session: MachineSession = {
        id: start.id,
        memberId: start.memberId ?? null,
        keyHash: start.keyHash ?? null,
        startedAt: this.now().toISOString(),
        maxDuration: start.maxDuration ?? null,
        offline: start.offline ?? false,
      };
      this.session = session;
      await writeFileAtomic(join(this.options.dataDir, SESSION_FILE), JSON.stringify(session));
      try {
        await this.switch('on');
      } catch (err) {
        await this.endSessionLocked('normal').catch(() => {});
        throw err;
      }
      if (session.maxDuration !== null) {
        this.sessionTimer = setTimeout(() => {
          this.sessionTimer = null;
          if (this.session?.id === session.id && this.hooks.deferMaxDuration?.(session)) return;
          this.endSession(session.id, 'automatic').catch((err) =>
            this.options.logger.error(
              { err: err.message },
              'relay: ending the session at maxDuration failed',
            ),
          );
        }, session.maxDuration * 1000);
      }
      this.options.logger.info(
        { sessionId: session.id, maxDuration: session.maxDuration },
        'machine session started',
      );
      return this.state();
    });
  }

  /** Ends the session if it is still the one named (or any session when id is null). */
  endSession(id: string | null, stopType: StopType): Promise<RelayStateMessage> {
    return this.run(async () => {
      if (this.session && (id === null || this.session.id === id)) await this.endSessionLocked(stopType);
      return this.state();
    });
  }

  /** Off now: ends a machine session (stopType 'normal') or cuts a door pulse short. */
  switchOff(): Promise<RelayStateMessage> {
    return this.run(async () => {
      if (this.session) await this.endSessionLocked('normal');
      if (this.pulseTimer) clearTimeout(this.pulseTimer);
      this.pulseTimer = null;
      this.doorSessionId = null;
      // Off means off: a held door locks too (the next config from the hub may hold it again).
      this.heldOpen = false;
      await this.switch('off');
      return this.state();
    });
  }

  /**
   * A relay whose link broke during a machine session (a smart plug that stopped answering or was
   * switched off at its button) ends the session at once (stopType 'offline'), with an 'offline'
   * log naming the problem: the machine is, or will be, without power (a plug's own auto-off timer
   * cuts it if the agent cannot), and the member is not billed for time the agent cannot vouch for.
   * The systemd watchdog hears of it through hardwareHealthy() too.
   */
  private checkHardware(): void {
    const session = this.session;
    if (!session) return;
    const problem = this.hardwareHealthy();
    if (problem === true) return;
    this.run(async () => {
      if (this.session?.id !== session.id) return;
      this.options.logger.error(
        { sessionId: session.id, problem },
        'the relay failed during a machine session; ending it',
      );
      await this.options.queue.append({
        kind: 'log',
        id: randomUUID(),
        type: 'offline',
        createdAt: this.now().toISOString(),
        notes: `Session ended: ${problem}`.slice(0, 2000),
        metadata: { sessionId: session.id },
      });
      await this.endSessionLocked('offline');
    }).catch((err) =>
      this.options.logger.error(
        { err: (err as Error).message, sessionId: session.id },
        'the session ended, but switching the relay off failed',
      ),
    );
  }

  /** Must run inside run(). */
  private async endSessionLocked(stopType: StopType, opts: { keepRelay?: boolean } = {}): Promise<void> {
    const session = this.session;
    if (!session) return;
    if (this.sessionTimer) clearTimeout(this.sessionTimer);
    this.sessionTimer = null;
    this.session = null;
    const now = this.now();
    const stoppedAt = now.toISOString();
    const idle = this.hooks.idleSeconds?.(session, now);
    // The stop item is durable before the relay changes: it is the record that the session ended.
    await this.options.queue.append({
      kind: 'stop',
      id: randomUUID(),
      sessionId: session.id,
      stopType,
      stoppedAt,
      ...(idle === undefined ? {} : { idleDurationSeconds: idle }),
    });
    await rm(join(this.options.dataDir, SESSION_FILE), { force: true });
    this.options.logger.info({ sessionId: session.id, stopType }, 'machine session ended');
    if (!opts.keepRelay) await this.switch('off');
  }

  private async recoverSession(): Promise<void> {
    const file = join(this.options.dataDir, SESSION_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return;
    }
    try {
      const session = JSON.parse(text) as MachineSession;
      if (typeof session.id === 'string' && session.id) {
        await this.options.queue.append({
          kind: 'stop',
          id: randomUUID(),
          sessionId: session.id,
          stopType: 'offline',
          stoppedAt: this.now().toISOString(),
        });
        this.options.logger.warn(
          { sessionId: session.id },
          'machine session left running by the last run ended',
        );
      }
    } catch {
      this.options.logger.warn({ file }, 'unreadable session file ignored');
    }
    await rm(file, { force: true });
  }

  private async switch(state: 'on' | 'off'): Promise<void> {
    const before = this.options.relay.get();
    try {
      await this.options.relay.set(state);
    } catch (err) {
      if (state === 'on') await this.options.relay.set('off').catch(() => {});
      if (this.options.relay.get() !== before) this.changed();
      throw err;
    }
    if (state !== before) this.changed();
    else if (state === 'on') this.emit();
  }

  private changed(): void {
    this.since = this.now().toISOString();
    this.emit();
  }

  private emit(): void {
    const state = this.state();
    for (const listener of this.listeners) listener(state);
  }

  private clearTimers(): void {
    if (this.pulseTimer) clearTimeout(this.pulseTimer);
    if (this.sessionTimer) clearTimeout(this.sessionTimer);
    this.pulseTimer = null;
    this.sessionTimer = null;
  }

  private run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.chain.then(task, task);
    this.chain = result.catch(() => {});
    return result;
  }
}
