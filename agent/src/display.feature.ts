import { type Display, layoutLines } from '@makerspace/hardware';
import type { Logger } from '@makerspace/shared/agent';
import type { TapOutcome } from './card-access.feature.js';

export interface DisplayFeatureOptions {
  /** The LCD (or simulated display) from the config's `display`; null without one. */
  display: Display | null;
  /** What the display shows between taps: the resource's name and what to do. */
  idleLines: () => string[];
  logger: Logger;
  /** How long a tap's answer stays before the idle lines return (5 s). */
  holdMs?: number;
}

/** The words an action adds below the hub's lines (the member's name). */
const actionWords: Partial<Record<TapOutcome['action'], string>> = {
  pulsed: 'Door open',
  sessionStarted: 'Machine on',
  takeover: 'Machine on',
  sessionStopped: 'Machine off',
};

/** For decisions the agent took offline, which come with no lines from the hub. */
const offlineDenials: Record<string, string> = {
  unknownKey: 'Unknown key card',
};

/** The lines a tap's outcome shows: the hub's `messages` first (as the HTTP bridge API sends them). */
export function tapLines(outcome: TapOutcome): string[] {
  const hub = (outcome.messages ?? []).filter((line) => line.trim() !== '');
  if (outcome.result === 'denied') {
    if (hub.length) return hub;
    return [(outcome.reason && offlineDenials[outcome.reason]) || 'Access denied'];
  }
  if (outcome.result === 'message') return hub.length ? hub : ['OK'];
  const action = actionWords[outcome.action];
  const lines = hub.length ? hub : ['Welcome'];
  return [...lines, ...(action ? [action] : []), ...(outcome.offline ? ['(offline)'] : [])];
}

/**
 * The optional character display at the reader: the member's name on allowed, the reason on
 * denied, the hub's message otherwise; after a few seconds the idle lines (the resource's name)
 * come back. Like the buzzer it only informs: a display that fails is logged and left out, and
 * nothing waits for it.
 */
export class DisplayFeature {
  private display: Display | null = null;
  private holdTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: DisplayFeatureOptions) {}

  async start(): Promise<void> {
    const { display, logger } = this.options;
    if (!display) return;
    try {
      await display.open();
      this.display = display;
    } catch (err) {
      logger.error(
        { err: (err as Error).message, display: display.description },
        'display not available; taps work without it',
      );
      await display.close().catch(() => {});
      return;
    }
    this.idle();
  }

  async stop(): Promise<void> {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    const display = this.display;
    this.display = null;
    await display?.close();
  }

  /** Shows a tap's answer, then the idle lines again. */
  showTap(outcome: TapOutcome): void {
    this.show(tapLines(outcome), this.options.holdMs ?? 5000);
  }

  /** Shows lines for `holdMs` (a warning before an idle machine is cut), then the idle lines. */
  show(lines: string[], holdMs: number): void {
    const display = this.display;
    if (!display) return;
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => {
      this.holdTimer = null;
      this.idle();
    }, holdMs);
    this.holdTimer.unref();
    this.write(display, lines);
  }

  /** The idle lines changed (a new name from the hub, a session started): shown unless an answer is up. */
  refresh(): void {
    if (!this.holdTimer) this.idle();
  }

  private idle(): void {
    if (this.display) this.write(this.display, this.options.idleLines());
  }

  private write(display: Display, lines: string[]): void {
    display
      .show(layoutLines(lines, display.columns, display.rows))
      .catch((err) => this.options.logger.error({ err: (err as Error).message }, 'display write failed'));
  }
}
