import { type ChildProcess, fork } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

/**
 * The live channel's writes, off the hub's event loop (docs/DECISIONS.md, "The live channel's
 * writer process"): once a stream's headers are sent, its socket is handed to a process of its
 * own (live-writer-process.ts), and each batch goes to it once, with the streams it is for. The
 * thousand socket writes of a flush, and the kernel's work for each, then run beside the API's
 * event loop instead of between its requests. The writer runs at the lowest priority (nice 19),
 * so where the machine's CPUs are short, switch-ons go first and live updates wait.
 *
 * A stream whose socket cannot be handed over (TLS in the hub, an HTTP/1.0 client without
 * chunked encoding, a writer that could not start) stays with the hub, written as before.
 */
export class LiveWriter {
  private child: Promise<ChildProcess | null> | null = null;
  private nextId = 1;
  /** Streams the writer holds. */
  private readonly held = new Set<number>();
  /** The writer could not start: every stream stays with the hub. */
  private broken = false;
  private stopped = false;

  constructor(
    private readonly logger: Logger,
    /** Streams the writer no longer holds (gone, ended, cut off as too slow, or the writer ended). */
    private readonly onClosed: (ids: number[]) => void,
    private readonly maxBuffered: number,
  ) {}

  /**
   * Hands the socket of `out` (headers written, nothing else) to the writer. `adopted` learns the
   * stream's id before the hub's copy of the socket closes (which closes `out`). Answers the id,
   * or null when the stream stays with the hub.
   */
  async adopt(out: ServerResponse, adopted: (id: number) => void): Promise<number | null> {
    const socket = out.socket;
    if (this.broken || this.stopped || !socket || !(socket instanceof Socket) || socket instanceof TLSSocket)
      return null;
    if (!out.chunkedEncoding || out.writableLength > 0) return null;
    const child = await this.start();
    if (!child || socket.destroyed) return null;
    // The headers leave the hub's copy first.
    if (socket.writableLength > 0) {
      await new Promise<void>((resolve) => {
        socket.once('drain', resolve);
        socket.once('close', resolve);
      });
      if (socket.destroyed) return null;
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      // keepOpen: the hub's copy is closed here (below), with the HTTP server's own bookkeeping.
      const sent = child.send({ t: 'adopt', id }, socket, { keepOpen: true }, (err) => {
        if (err || !child.connected) {
          resolve(null);
          return;
        }
        this.held.add(id);
        adopted(id);
        socket.destroy();
        resolve(id);
      });
      if (!sent && !child.connected) resolve(null);
    });
  }

  /** Bytes framed as one HTTP/1.1 chunk for the streams `ids`. */
  write(ids: number[], chunk: Buffer): void {
    if (ids.length) void this.send({ t: 'write', ids, data: chunk });
  }

  /** Ends the streams `ids`, after `chunk` (their last event) if any. */
  end(ids: number[], chunk: Buffer | null): void {
    if (!ids.length) return;
    for (const id of ids) this.held.delete(id);
    void this.send({ t: 'end', ids, data: chunk });
  }

  /** Ends every stream the writer holds, and the writer. */
  async close(): Promise<void> {
    this.stopped = true;
    const child = await this.child;
    this.end([...this.held], null);
    if (child?.connected) child.disconnect();
  }

  private async send(message: object): Promise<void> {
    const child = await this.child;
    if (child?.connected) child.send(message);
  }

  private start(): Promise<ChildProcess | null> {
    this.child ??= new Promise((resolve) => {
      const self = fileURLToPath(import.meta.url);
      // From the sources (tests), through tsx; from the build, as it is.
      const source = self.endsWith('.ts');
      const script = join(dirname(self), `live-writer-process.${source ? 'ts' : 'js'}`);
      const child = fork(script, [String(this.maxBuffered)], {
        execArgv: source ? ['--import', 'tsx'] : [],
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      let ready = false;
      child.on('message', (message: { t: string; ids?: number[] }) => {
        if (message.t === 'ready') {
          ready = true;
          if (child.pid !== undefined) {
            try {
              setPriority(child.pid, 19);
            } catch {
              // Left at the hub's priority.
            }
          }
          resolve(child);
        } else if (message.t === 'closed' && message.ids) {
          for (const id of message.ids) this.held.delete(id);
          this.onClosed(message.ids);
        }
      });
      child.on('error', (err) => this.logger.error({ err }, 'live channel: the writer process failed'));
      child.on('exit', (code, signal) => {
        const ids = [...this.held];
        this.held.clear();
        if (!ready) {
          this.broken = true;
          this.logger.error(
            { code, signal },
            'live channel: the writer process did not start; the hub writes its streams itself',
          );
          resolve(null);
        } else if (!this.stopped) {
          this.logger.warn(
            { code, signal, streams: ids.length },
            'live channel: the writer process ended; its streams ended (browsers reconnect)',
          );
        }
        this.child = null;
        if (ids.length) this.onClosed(ids);
      });
      // The writer does not keep the hub running.
      child.unref();
      child.channel?.unref();
    });
    return this.child;
  }
}
