import { readFile, stat } from 'node:fs/promises';
import { HardwareError, type HardwareLogger, silentLogger, withTimeout } from './hardware.errors.js';
import type { PowerMeter } from './power-meter.js';
import type { Relay, RelayState } from './relay.js';

/** How a smart plug is watched; the config's defaults are in config.ts. */
export interface SmartPlugTiming {
  /**
   * The plug's own auto-off timer, renewed on every poll while on: if the agent dies or loses the
   * plug, the plug switches itself off after this many seconds. 0 leaves the plug's timer unset.
   */
  deadManSeconds: number;
  /** How often the plug is asked for its state and power (and the timer renewed). */
  pollSeconds: number;
  /** How long one request may take. */
  timeoutMs: number;
  /** Failed polls in a row before the plug counts as not answering. */
  failuresAllowed: number;
}

/** What one poll learns from the plug. */
export interface PlugStatus {
  on: boolean;
  /** Watts; null for plugs without metering; undefined when this answer does not say. */
  watts?: number | null;
}

/**
 * What Shelly and Tasmota plugs share: one queue for switches and polls (a renewal never overtakes
 * a switch-off), the dead man's timer renewed while on, power readings for busy sensing, and the
 * fail-safe checks. The agent is the authority: a plug found on without a session (its button) is
 * switched off again, and a plug that went off by itself during a session is reported, not switched
 * back on. healthy() says what is wrong, so the agent ends the session and stops feeding the
 * systemd watchdog.
 */
export abstract class SmartPlugRelay implements Relay, PowerMeter {
  abstract readonly description: string;
  protected readonly logger: HardwareLogger;
  private state: RelayState = 'off';
  private active = false;
  private queue: Promise<unknown> = Promise.resolve();
  private pollTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private lastError = '';
  private offByItself = false;
  private watts: number | null = null;
  private polling = false;
  private readonly powerListeners = new Set<(watts: number | null) => void>();

  constructor(
    protected readonly timing: SmartPlugTiming,
    logger: HardwareLogger | undefined,
  ) {
    this.logger = logger ?? silentLogger;
  }

  /** Opens the link (HTTP needs nothing; MQTT connects) and checks the plug answers. */
  protected abstract connect(): Promise<void>;
  protected abstract disconnect(): Promise<void>;
  /** Switches the plug; on: also (re)starts its auto-off timer of deadManSeconds. */
  protected abstract switchTo(on: boolean): Promise<void>;
  protected abstract readStatus(): Promise<PlugStatus>;

  async open(): Promise<void> {
    if (this.active) return;
    try {
      // A broker connection, a subscription and a first answer, each bounded by timeoutMs itself.
      await withTimeout(this.connect(), this.timing.timeoutMs * 3 + 1000, `${this.description}: connecting`);
      this.active = true;
      // Safe state first: the plug may still be on from before a crash.
      await this.enqueue(() => this.switchTo(false));
    } catch (err) {
      this.active = false;
      await this.disconnect().catch(() => {});
      throw err;
    }
    this.state = 'off';
    this.pollTimer = setInterval(() => this.poll(), this.timing.pollSeconds * 1000);
    this.pollTimer.unref();
  }

  async set(state: RelayState): Promise<void> {
    if (!this.active) throw new HardwareError('port-closed', `${this.description}: not open`);
    await this.enqueue(async () => {
      // Off is what the agent wants even when the plug does not hear it: no renewal from now on,
      // and a plug found on when it answers again is switched off.
      if (state === 'off') this.state = 'off';
      try {
        await this.switchTo(state === 'on');
      } catch (err) {
        this.failed(err);
        throw err;
      }
      this.state = state;
      this.offByItself = false;
      this.answered();
    });
  }

  get(): RelayState {
    return this.state;
  }

  healthy(): true | string {
    if (!this.active) return `${this.description}: not open`;
    if (this.failures >= this.timing.failuresAllowed)
      return `${this.description}: not answering (${this.lastError})`;
    if (this.offByItself)
      return `${this.description}: switched off by itself during a session (its button or its auto-off timer)`;
    return true;
  }

  async close(): Promise<void> {
    if (!this.active) return;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
    try {
      await this.enqueue(() => this.switchTo(false));
      this.state = 'off';
    } catch (err) {
      this.logger.warn(
        { err: (err as Error).message },
        'could not switch the plug off while closing; its auto-off timer will',
      );
      this.state = 'off';
    }
    this.active = false;
    await this.disconnect().catch(() => {});
  }

  onPower(listener: (watts: number | null) => void): () => void {
    this.powerListeners.add(listener);
    return () => this.powerListeners.delete(listener);
  }

  lastPower(): number | null {
    return this.watts;
  }

  /** A power reading from the plug (a poll, or a message it sent by itself). */
  protected reading(watts: number | null): void {
    if (this.failures >= this.timing.failuresAllowed) return;
    this.watts = watts;
    for (const listener of this.powerListeners) listener(watts);
  }

  /** The plug says it is gone (Tasmota's Last Will): not answering at once. */
  protected gone(why: string): void {
    this.failures = Math.max(this.failures, this.timing.failuresAllowed - 1);
    this.failed(new Error(why));
  }

  private poll(): void {
    // A poll waiting in the queue is enough: polls do not pile up behind a hanging request.
    if (this.polling) return;
    this.polling = true;
    this.enqueue(async () => {
      let status: PlugStatus;
      try {
        status = await this.readStatus();
      } catch (err) {
        this.failed(err);
        return;
      }
      this.answered();
      if (status.watts !== undefined) this.reading(status.watts);
      if (this.state === 'on' && !status.on) {
        if (!this.offByItself)
          this.logger.error({ plug: this.description }, 'the plug switched off by itself during a session');
        this.offByItself = true;
      } else if (this.state === 'on') {
        await this.switchTo(true).catch((err) => this.failed(err));
      } else if (status.on) {
        this.logger.warn(
          { plug: this.description },
          'the plug was switched on without a session (its button?); switching it off',
        );
        await this.switchTo(false).catch((err) => this.failed(err));
      }
    })
      .catch(() => {})
      .finally(() => {
        this.polling = false;
      });
  }

  private answered(): void {
    if (this.failures >= this.timing.failuresAllowed)
      this.logger.info({ plug: this.description }, 'the plug answers again');
    this.failures = 0;
  }

  private failed(err: unknown): void {
    this.failures += 1;
    this.lastError = (err as Error).message;
    if (this.failures === this.timing.failuresAllowed) {
      this.logger.error({ plug: this.description, err: this.lastError }, 'the plug does not answer');
      this.watts = null;
      for (const listener of this.powerListeners) listener(null);
    }
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const bounded = () => withTimeout(task(), this.timing.timeoutMs * 2 + 500, `${this.description}`);
    const result = this.queue.then(bounded, bounded);
    this.queue = result.catch(() => {});
    return result;
  }
}

/**
 * The first line of a password file. Like the bridge API key, the file must be readable by its
 * owner only: the plug's or the broker's password switches the machine without the agent.
 */
export async function readPasswordFile(file: string, device: string): Promise<string> {
  let mode: number;
  let text: string;
  try {
    mode = (await stat(file)).mode & 0o777;
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new HardwareError(
      'device-auth',
      `${device}: cannot read passwordFile ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if ((mode & 0o077) !== 0) {
    throw new HardwareError(
      'device-auth',
      `${device}: passwordFile ${file} has mode ${mode.toString(8).padStart(4, '0')}; it must not be readable by group or others (chmod 600 ${file})`,
    );
  }
  return text.split('\n')[0].trim();
}
