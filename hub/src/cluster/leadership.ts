import type { Logger } from '@makerspace/shared';
import pg from 'pg';

/** A background task that runs on one hub of the cluster at a time. */
export interface LeaderTask {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/**
 * Periodic jobs run once per cluster: the hub that holds a PostgreSQL advisory lock (on its own
 * connection) runs them. When that hub dies its connection ends, the lock is free, and another
 * hub takes it within `retryMs`. The lock is per database schema, so separate installations
 * sharing one PostgreSQL server do not wait for each other.
 */
export class Leadership {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private held = false;
  private busy: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly options: {
      url: string;
      schema?: string;
      logger: Logger;
      tasks: LeaderTask[];
      retryMs?: number;
    },
  ) {}

  isLeader(): boolean {
    return this.held;
  }

  start(): void {
    const tick = () => {
      this.busy ??= this.tick().finally(() => {
        this.busy = null;
      });
    };
    tick();
    this.timer = setInterval(tick, this.options.retryMs ?? 2_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.busy;
    await this.lose();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!this.client) {
        const client = new pg.Client({
          connectionString: this.options.url,
          connectionTimeoutMillis: 5_000,
          ...(this.options.schema ? { options: `-c search_path=${this.options.schema}` } : {}),
        });
        client.on('error', () => {});
        this.client = client;
        await client.connect();
      }
      if (this.held) {
        await this.client.query('SELECT 1');
        return;
      }
      const { rows } = await this.client.query(
        `SELECT pg_try_advisory_lock(hashtext('makerspace-hub:periodic:' || current_schema())) AS ok`,
      );
      if (rows[0]?.ok === true && !this.stopped) {
        this.held = true;
        this.options.logger.info('this hub runs the periodic jobs of the cluster');
        for (const task of this.options.tasks) await task.start();
      }
    } catch (err) {
      this.options.logger.warn({ err }, 'lost the PostgreSQL connection that holds the periodic-jobs lock');
      await this.lose();
    }
  }

  private async lose(): Promise<void> {
    const wasHeld = this.held;
    this.held = false;
    if (wasHeld) for (const task of this.options.tasks) await task.stop().catch(() => {});
    const client = this.client;
    this.client = null;
    // Ending the session frees the lock for the others.
    await client?.end().catch(() => {});
  }
}
