import type { BridgeConfig, Logger } from '@makerspace/shared/agent';
import type { FeedbackFeature } from './feedback.feature.js';
import type { InputsFeature } from './inputs.feature.js';
import type { MachineSession, RelayController } from './relay.controller.js';

export interface IdleFeatureOptions {
  relay: RelayController;
  inputs: InputsFeature;
  /** The hub's bridge config: idleTimeoutSeconds, idleWarningSeconds, busyGraceSeconds. */
  config: {
    readonly current: BridgeConfig | null;
    onChange(listener: (c: BridgeConfig) => void): () => void;
  };
  feedback: FeedbackFeature;
  logger: Logger;
  now?: () => Date;
}

/** What the feature knows of the running session. */
interface Tracking {
  session: MachineSession;
  /** Idle seconds counted up to `mark`. */
  idleMs: number;
  /** Since when the machine is idle (busy() false), or null while busy or unknown. */
  idleSince: number | null;
  /** The session's maxDuration passed while busy: it ends when idle, at the latest then. */
  graceUntil: number | null;
  warnedCutAt: number | null;
  timer: NodeJS.Timeout | null;
}

/**
 * Machines that know they are busy (a busy input: a current clamp, a busy contact, a smart plug's
 * power): a session idle for the hub's `idleTimeoutSeconds` is warned (the buzzer's warning
 * pattern, and the hub shows it on the member's page), then ended `idleWarningSeconds` later
 * (stopType `automatic`) unless the machine gets busy. A busy machine is never cut by the idle
 * timer, and by its maximum duration only after `busyGraceSeconds` (or as soon as it is idle
 * within them). An unknown busy state (a plug that stopped answering) counts as busy: the
 * agent does not cut a job it cannot see. Idle seconds go with the session's stop
 * (`idleDurationSeconds`), which the hub bills at the resource's idle price.
 */
export class IdleFeature {
  private tracking: Tracking | null = null;
  private readonly unsubscribers: (() => void)[] = [];
  private readonly now: () => number;

  constructor(private readonly options: IdleFeatureOptions) {
    const clock = options.now ?? (() => new Date());
    this.now = () => clock().getTime();
  }

  async start(): Promise<void> {
    const { relay, inputs, config } = this.options;
    if (relay.controlType !== 'machine' || !inputs.hasBusyInput) return;
    this.unsubscribers.push(
      relay.onStateChange(() => this.sessionChanged()),
      inputs.onBusyChange(() => this.busyChanged()),
      config.onChange(() => this.schedule()),
    );
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
    if (this.tracking?.timer) clearTimeout(this.tracking.timer);
    this.tracking = null;
  }

  private sessionChanged(): void {
    const session = this.options.relay.currentSession;
    if (session?.id === this.tracking?.session.id) return;
    if (this.tracking?.timer) clearTimeout(this.tracking.timer);
    this.tracking = null;
    this.options.inputs.setIdleWarning(null);
    if (!session) return;
    const at = this.now();
    this.tracking = {
      session,
      idleMs: 0,
      idleSince: this.options.inputs.busy() === false ? at : null,
      graceUntil: null,
      warnedCutAt: null,
      timer: null,
    };
    this.schedule();
  }

  private busyChanged(): void {
    const tracking = this.tracking;
    if (!tracking) return;
    const at = this.now();
    const idle = this.options.inputs.busy() === false;
    if (idle && tracking.idleSince === null) tracking.idleSince = at;
    if (!idle && tracking.idleSince !== null) {
      tracking.idleMs += at - tracking.idleSince;
      tracking.idleSince = null;
      if (tracking.warnedCutAt !== null) {
        this.options.logger.info(
          { sessionId: tracking.session.id },
          'machine busy again: no idle switch-off',
        );
        tracking.warnedCutAt = null;
        this.options.inputs.setIdleWarning(null);
      }
    }
    this.schedule();
  }

  /** The relay's maxDuration hook: true when a busy machine gets its grace (the cut comes from here). */
  deferMaxDuration(session: MachineSession): boolean {
    const tracking = this.tracking;
    const grace = this.options.config.current?.busyGraceSeconds ?? 0;
    if (!tracking || tracking.session.id !== session.id || grace <= 0) return false;
    if (this.options.inputs.busy() === false) return false;
    tracking.graceUntil = this.now() + grace * 1000;
    this.options.logger.info(
      { sessionId: session.id, grace },
      'maximum duration reached while busy: grace period',
    );
    this.schedule();
    return true;
  }

  /** The relay's stop hook: the session's idle seconds, when it was tracked. */
  idleSeconds(session: MachineSession, at: number): number | undefined {
    const tracking = this.tracking;
    if (!tracking || tracking.session.id !== session.id) return undefined;
    const idleMs = tracking.idleMs + (tracking.idleSince === null ? 0 : at - tracking.idleSince);
    return Math.round(idleMs / 1000);
  }

  /** Sets the one timer to the next thing that happens: the warning, the cut or the grace's end. */
  private schedule(): void {
    const tracking = this.tracking;
    if (!tracking) return;
    if (tracking.timer) clearTimeout(tracking.timer);
    tracking.timer = null;
    const at = this.now();
    const idle = tracking.idleSince !== null;
    // A maximum duration passed while busy: ends as soon as the machine is idle, or at the grace's end.
    if (tracking.graceUntil !== null) {
      if (idle || at >= tracking.graceUntil) {
        this.cut('maximum duration reached');
        return;
      }
      tracking.timer = setTimeout(() => this.schedule(), tracking.graceUntil - at);
      return;
    }
    const config = this.options.config.current;
    const timeout = config?.idleTimeoutSeconds;
    if (timeout === undefined && tracking.warnedCutAt !== null) {
      // The hub took the idle switch-off away while the machine was warned.
      tracking.warnedCutAt = null;
      this.options.inputs.setIdleWarning(null);
    }
    if (!idle || timeout === undefined || tracking.idleSince === null) return;
    const warnAt = tracking.idleSince + timeout * 1000;
    const cutAt = warnAt + (config?.idleWarningSeconds ?? 60) * 1000;
    if (at >= cutAt) {
      this.cut(`idle for ${Math.round((at - tracking.idleSince) / 1000)} s`);
      return;
    }
    if (at >= warnAt && tracking.warnedCutAt === null) {
      tracking.warnedCutAt = cutAt;
      this.options.logger.warn(
        { sessionId: tracking.session.id, cutAt: new Date(cutAt).toISOString() },
        'machine idle: switching off unless it gets busy',
      );
      this.options.feedback.signal('warning');
      this.options.inputs.setIdleWarning({
        sessionId: tracking.session.id,
        cutAt: new Date(cutAt).toISOString(),
      });
    }
    const next = at >= warnAt ? cutAt : warnAt;
    tracking.timer = setTimeout(() => this.schedule(), Math.max(0, next - at));
  }

  private cut(why: string): void {
    const tracking = this.tracking;
    if (!tracking) return;
    this.options.logger.info({ sessionId: tracking.session.id, why }, 'switching the machine off');
    this.options.relay
      .endSession(tracking.session.id, 'automatic')
      .catch((err) => this.options.logger.error({ err: (err as Error).message }, 'idle switch-off failed'));
  }
}
