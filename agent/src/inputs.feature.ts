import { randomUUID } from 'node:crypto';
import { DEFAULT_HELD_OPEN_SECONDS, type Input, type InputConfig } from '@makerspace/hardware';
import type { InputsMessage, Logger } from '@makerspace/shared/agent';
import type { LogQueue } from './log-queue.js';
import type { RelayController } from './relay.controller.js';

export interface InputsFeatureOptions {
  /** The config's `inputs`, in order. */
  config: readonly InputConfig[];
  /** The built inputs by name (hardware's createInputs). */
  inputs: ReadonlyMap<string, Input>;
  relay: RelayController;
  queue: LogQueue;
  /** Publishes the states to the hub (retained; HubLink.setInputs). */
  report: (message: InputsMessage) => void;
  /** Door pulse length for the exit button (the hub's, else the local config's). */
  pulseSeconds: () => number;
  logger: Logger;
  now?: () => Date;
}

interface Tracked {
  config: InputConfig;
  label: string;
  input: Input;
  since: string;
  heldOpen: boolean;
  heldTimer: NodeJS.Timeout | null;
  unsubscribe: (() => void) | null;
}

/**
 * The agent's inputs (docs/HARDWARE.md, "Inputs"): reads them, reports their states to the hub,
 * and acts on them where the agent must act alone, also while the hub is away:
 * - an interlock that opens ends a running machine session (stopType `interlock`), and while
 *   one is open or unknown no session starts;
 * - a door contact open for longer than its `heldOpenSeconds` reports the door held open;
 * - an exit button opens the door for its pulse and writes a log.
 * Busy inputs are read by the idle feature (idle.feature.ts) through busy() and onBusyChange().
 */
export class InputsFeature {
  private readonly tracked: Tracked[] = [];
  private readonly busyListeners = new Set<() => void>();
  private idleWarning: InputsMessage['idleWarning'] = null;
  private readonly now: () => Date;
  private started = false;

  constructor(private readonly options: InputsFeatureOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async start(): Promise<void> {
    const { config, inputs, logger } = this.options;
    const at = this.now().toISOString();
    for (const entry of config) {
      const input = inputs.get(entry.name);
      if (!input) continue;
      const tracked: Tracked = {
        config: entry,
        label: entry.label ?? entry.name,
        input,
        since: at,
        heldOpen: false,
        heldTimer: null,
        unsubscribe: null,
      };
      tracked.unsubscribe = input.onChange((active) => this.changed(tracked, active));
      this.tracked.push(tracked);
      try {
        await input.open();
      } catch (err) {
        // The state stays unknown: an interlock then counts as open, a busy input as not idle.
        logger.error({ input: entry.name, err: (err as Error).message }, 'input cannot be read');
      }
      logger.info(
        { input: entry.name, kind: entry.kind, active: input.get() },
        `input: ${input.description}`,
      );
    }
    this.started = true;
    for (const tracked of this.tracked) this.watchHeldOpen(tracked);
    this.publish();
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const tracked of this.tracked) {
      tracked.unsubscribe?.();
      if (tracked.heldTimer) clearTimeout(tracked.heldTimer);
      await tracked.input.close().catch(() => {});
    }
    this.tracked.length = 0;
  }

  /** True when a busy input senses work, false when every one senses none, null without any or when unknown. */
  busy(): boolean | null {
    const states = this.tracked.filter((t) => t.config.kind === 'busy').map((t) => t.input.get());
    if (states.length === 0) return null;
    if (states.includes(true)) return true;
    return states.includes(null) ? null : false;
  }

  get hasBusyInput(): boolean {
    return this.options.config.some((c) => c.kind === 'busy');
  }

  onBusyChange(listener: () => void): () => void {
    this.busyListeners.add(listener);
    return () => this.busyListeners.delete(listener);
  }

  /** The label of the first interlock that is not closed (open or unknown), or null. */
  openInterlock(): string | null {
    const open = this.tracked.find((t) => t.config.kind === 'interlock' && t.input.get() !== true);
    return open ? open.label : null;
  }

  /** The idle warning the hub shows on the member's page (idle.feature.ts sets and clears it). */
  setIdleWarning(warning: InputsMessage['idleWarning']): void {
    if (JSON.stringify(warning) === JSON.stringify(this.idleWarning)) return;
    this.idleWarning = warning;
    this.publish();
  }

  private changed(tracked: Tracked, active: boolean | null): void {
    tracked.since = this.now().toISOString();
    const { logger } = this.options;
    logger.info({ input: tracked.config.name, kind: tracked.config.kind, active }, 'input changed');
    if (!this.started) return;
    switch (tracked.config.kind) {
      case 'busy':
        for (const listener of this.busyListeners) listener();
        break;
      case 'interlock':
        if (active !== true) this.interlockOpened(tracked);
        break;
      case 'doorContact':
        this.watchHeldOpen(tracked);
        break;
      case 'exitButton':
        if (active === true) this.exitPressed(tracked);
        break;
    }
    this.publish();
  }

  private interlockOpened(tracked: Tracked): void {
    const { relay, logger } = this.options;
    const session = relay.currentSession;
    if (!session) return;
    logger.warn(
      { input: tracked.config.name, sessionId: session.id },
      'interlock opened: ending the session',
    );
    relay
      .endSession(session.id, 'interlock')
      .catch((err) =>
        logger.error({ err: (err as Error).message }, 'ending the session at the interlock failed'),
      );
  }

  private watchHeldOpen(tracked: Tracked): void {
    if (tracked.config.kind !== 'doorContact') return;
    if (tracked.heldTimer) clearTimeout(tracked.heldTimer);
    tracked.heldTimer = null;
    if (tracked.input.get() !== true) {
      if (tracked.heldOpen) this.options.logger.info({ input: tracked.config.name }, 'door closed again');
      tracked.heldOpen = false;
      return;
    }
    const seconds = tracked.config.heldOpenSeconds ?? DEFAULT_HELD_OPEN_SECONDS;
    tracked.heldTimer = setTimeout(() => {
      tracked.heldTimer = null;
      if (tracked.input.get() !== true) return;
      tracked.heldOpen = true;
      this.options.logger.warn({ input: tracked.config.name, seconds }, 'door held open');
      this.publish();
    }, seconds * 1000);
  }

  private exitPressed(tracked: Tracked): void {
    const { relay, queue, logger } = this.options;
    const id = randomUUID();
    const at = this.now().toISOString();
    // The log first (durable), then the door: as for every decision the agent takes alone.
    queue
      .append({
        kind: 'log',
        id,
        type: 'allowed',
        createdAt: at,
        stoppedAt: at,
        stopType: 'normal',
        memberId: null,
        notes: `Exit button "${tracked.label}" opened the door`,
        metadata: { input: tracked.config.name, exitButton: true },
      })
      .then(() => relay.pulse(this.options.pulseSeconds(), id))
      .then(() => logger.info({ input: tracked.config.name }, 'exit button: door opened'))
      .catch((err) => logger.error({ err: (err as Error).message }, 'exit button: opening the door failed'));
  }

  private publish(): void {
    if (!this.started || this.tracked.length === 0) return;
    this.options.report({
      inputs: this.tracked.map((t) => ({
        name: t.config.name,
        kind: t.config.kind,
        label: t.label,
        active: t.input.get(),
        since: t.since,
        ...(t.config.kind === 'doorContact' ? { heldOpen: t.heldOpen } : {}),
      })),
      idleWarning: this.idleWarning,
    });
  }
}
