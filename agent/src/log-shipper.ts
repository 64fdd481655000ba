import { type LogItem, type Logger, MAX_ARRAY_ITEMS, MAX_PAYLOAD_BYTES } from '@makerspace/shared/agent';
import type { HubLink } from './hub-link.js';
import type { LogQueue } from './log-queue.js';

export interface LogShipperOptions {
  link: HubLink;
  queue: LogQueue;
  logger: Logger;
  /** A batch not fully acknowledged within this time is sent again (its unacked part). */
  ackTimeoutMs: number;
  /** Items per `logs` message (at most MAX_ARRAY_ITEMS). */
  batchSize?: number;
}

/** Room for the `{"items":[...]}` envelope. */
const BATCH_BYTES = MAX_PAYLOAD_BYTES - 1024;

/**
 * Sends the log queue to the hub, oldest first, one batch at a time: the next batch goes when the
 * hub has acknowledged the whole previous one (`logs/ack`), so the hub receives logs in order.
 * Unacknowledged items are sent again after the timeout and after every reconnect; the hub stores
 * each id once, so a repeat is harmless. Items leave the queue only on acknowledgement.
 */
export class LogShipper {
  private inFlight = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: Array<() => void> = [];
  private readonly batchSize: number;

  constructor(private readonly options: LogShipperOptions) {
    this.batchSize = Math.min(options.batchSize ?? 100, MAX_ARRAY_ITEMS);
  }

  async start(): Promise<void> {
    const { link, queue } = this.options;
    link.handle('logs/ack', (ack) => this.onAck(ack.ids));
    this.unsubscribe = [
      link.onConnect(() => this.resend()),
      link.onDisconnect(() => this.reset()),
      queue.onAppend(() => this.pump()),
    ];
    if (link.connected) this.pump();
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    this.reset();
  }

  private async onAck(ids: string[]): Promise<void> {
    const removed = await this.options.queue.ack(ids);
    for (const id of ids) this.inFlight.delete(id);
    this.options.logger.debug({ acked: removed, pending: this.options.queue.size }, 'logs acknowledged');
    if (this.inFlight.size === 0) {
      this.clearTimer();
      this.pump();
    }
  }

  /** Sends the next batch when nothing is in flight. */
  private pump(): void {
    const { link, queue, logger } = this.options;
    if (!link.connected || this.inFlight.size > 0 || queue.size === 0) return;
    const batch = this.nextBatch(queue.pending());
    for (const item of batch) this.inFlight.add(item.id);
    this.timer = setTimeout(() => {
      this.timer = null;
      logger.warn({ unacked: this.inFlight.size }, 'logs not acknowledged in time; sending again');
      this.resend();
    }, this.options.ackTimeoutMs);
    link.publish('logs', { items: batch }).catch((err) => {
      // The timeout (or the next connect) sends them again.
      logger.warn({ err: err.message, items: batch.length }, 'publishing logs failed');
    });
  }

  private resend(): void {
    this.reset();
    this.pump();
  }

  private reset(): void {
    this.clearTimer();
    this.inFlight.clear();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private nextBatch(pending: LogItem[]): LogItem[] {
    const batch: LogItem[] = [];
    let bytes = 0;
    for (const item of pending) {
      const size = Buffer.byteLength(JSON.stringify(item)) + 1;
      if (batch.length > 0 && (batch.length >= this.batchSize || bytes + size > BATCH_BYTES)) break;
      batch.push(item);
      bytes += size;
    }
    return batch;
  }
}
