import { execFile } from 'node:child_process';
import type { Logger } from './logger.js';

export interface SystemdNotifierOptions {
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** The program that sends the datagram; tests pass a recorder script. */
  command?: string;
  /**
   * Asked before each watchdog ping: the ping is left out while it answers false (or throws, or
   * takes longer than the interval), so systemd restarts a process whose database, broker or
   * hardware is gone, not only one whose event loop is stuck. Says why in the log and STATUS.
   */
  healthy?: () => boolean | string | Promise<boolean | string>;
}

/**
 * sd_notify(3) for Type=notify units: READY=1, WATCHDOG=1 every half WATCHDOG_USEC, STOPPING=1.
 * Does nothing when NOTIFY_SOCKET is unset (not run by systemd).
 *
 * systemd's notify socket takes unix datagrams, which Node cannot send without a native addon
 * (node:dgram is UDP only). So each notification spawns `systemd-notify VAR=VALUE...`, which
 * ships with systemd and therefore exists wherever NOTIFY_SOCKET is set. The sender is then a
 * child process, so the unit needs NotifyAccess=all (systemd/makerspace-agent.service, makerspace-hub.service); recent
 * systemd-notify waits for the manager to process the message, so it is attributed to the unit.
 */
export class SystemdNotifier {
  private watchdog: NodeJS.Timeout | null = null;
  private readonly env: NodeJS.ProcessEnv;
  private readonly command: string;
  private warned = false;

  constructor(private readonly options: SystemdNotifierOptions) {
    this.env = options.env ?? process.env;
    this.command = options.command ?? 'systemd-notify';
  }

  get enabled(): boolean {
    return Boolean(this.env.NOTIFY_SOCKET);
  }

  /** The watchdog interval in ms (half of WATCHDOG_USEC), or null when no watchdog is set for us. */
  get watchdogIntervalMs(): number | null {
    const usec = Number(this.env.WATCHDOG_USEC);
    if (!this.enabled || !Number.isFinite(usec) || usec <= 0) return null;
    const pid = this.env.WATCHDOG_PID;
    if (pid && Number(pid) !== process.pid) return null;
    return Math.max(1, Math.floor(usec / 2000));
  }

  async start(): Promise<void> {
    const interval = this.watchdogIntervalMs;
    if (interval === null) return;
    this.watchdog = setInterval(() => void this.feedWatchdog(interval), interval);
    this.watchdog.unref();
  }

  private unhealthy: string | null = null;
  private checking = false;

  /** One watchdog tick: ping when the health check passes (a string answer is the reason it fails). */
  private async feedWatchdog(interval: number): Promise<void> {
    const check = this.options.healthy;
    if (!check) return this.notify('WATCHDOG=1');
    if (this.checking) return; // The previous check is still running: that counts as failing.
    this.checking = true;
    let verdict: boolean | string;
    try {
      verdict = await Promise.race([
        Promise.resolve().then(check),
        new Promise<string>((resolve) =>
          setTimeout(() => resolve('health check timed out'), interval).unref(),
        ),
      ]);
    } catch (err) {
      verdict = (err as Error).message;
    } finally {
      this.checking = false;
    }
    if (verdict === true) {
      if (this.unhealthy !== null) {
        this.options.logger.info({ was: this.unhealthy }, 'healthy again: feeding the watchdog');
        this.unhealthy = null;
        await this.notify('STATUS=healthy');
      }
      return this.notify('WATCHDOG=1');
    }
    const reason = verdict === false ? 'health check failed' : verdict;
    if (this.unhealthy !== reason) {
      this.unhealthy = reason;
      this.options.logger.error({ reason }, 'unhealthy: not feeding the watchdog, systemd will restart us');
      await this.notify(`STATUS=unhealthy: ${reason}`);
    }
  }

  async stop(): Promise<void> {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  ready(status?: string): Promise<void> {
    return this.notify('READY=1', ...(status ? [`STATUS=${status}`] : []));
  }

  stopping(): Promise<void> {
    return this.notify('STOPPING=1');
  }

  /** Sends the assignments; never throws (a missing systemd-notify is logged once). */
  notify(...assignments: string[]): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    return new Promise((resolve) => {
      execFile(this.command, assignments, { env: this.env, timeout: 5000 }, (err) => {
        if (err && !this.warned) {
          this.warned = true;
          this.options.logger.warn({ err: err.message, command: this.command }, 'sd_notify failed');
        }
        resolve();
      });
    });
  }
}
