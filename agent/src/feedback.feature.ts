import { type BeepPattern, beep, type Relay, type Sleep } from '@makerspace/hardware';
import type { Logger } from '@makerspace/shared/agent';

export interface FeedbackOptions {
  /** The buzzer/LED output; null when the config has no `feedback`. */
  output: Relay | null;
  logger: Logger;
  /** How a beep waits; tests may pass a faster one. */
  sleep?: Sleep;
}

/**
 * The optional buzzer or LED at the reader: a short beep when a tap is allowed (or answered with
 * a message), a long one when it is denied. It only ever informs: a beep runs after the relay has
 * acted, nobody waits for it, and a failing output is logged and never fails a tap. An output that
 * cannot be opened at start is logged and left out, so a broken buzzer does not keep a door shut.
 */
export class FeedbackFeature {
  private output: Relay | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly options: FeedbackOptions) {}

  async start(): Promise<void> {
    const { output, logger } = this.options;
    if (!output) return;
    try {
      await output.open();
      await output.set('off');
      this.output = output;
    } catch (err) {
      logger.error(
        { err: (err as Error).message, output: output.description },
        'feedback output not available; taps work without beeps',
      );
      await output.close().catch(() => {});
    }
  }

  /** Lets the beep that is playing finish, then switches the output off and releases it. */
  async stop(): Promise<void> {
    const output = this.output;
    this.output = null;
    if (!output) return;
    await this.chain;
    await output.close();
  }

  /**
   * Plays the pattern for a tap outcome without waiting for it. Beeps play one after the other,
   * so two quick taps give two distinct beeps.
   */
  signal(result: 'allowed' | 'denied' | 'message' | 'warning'): void {
    const output = this.output;
    if (!output) return;
    const pattern: BeepPattern =
      result === 'denied' ? 'denied' : result === 'warning' ? 'warning' : 'allowed';
    this.chain = this.chain.then(async () => {
      if (this.output !== output) return;
      try {
        await beep(output, pattern, this.options.sleep);
      } catch (err) {
        this.options.logger.error({ err: (err as Error).message, pattern }, 'feedback beep failed');
      }
    });
  }
}
