import { mkdir, open, readFile, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { LogItem, type Logger } from '@makerspace/shared/agent';
import { syncDir } from './atomic-file.js';

const JOURNAL = 'queue.jsonl';

/** One journal line: an item added, or ids the hub acknowledged. */
type JournalLine = { add: LogItem } | { ack: string[] };

export interface LogQueueOptions {
  /** Directory of the journal (the agent's dataDir). */
  dir: string;
  logger: Logger;
  /** Rewrite the journal once it holds this many lines more than pending items. */
  compactAfter?: number;
}

/**
 * The durable queue of resource logs waiting for the hub's acknowledgement (design section 9).
 *
 * An append-only JSONL journal: `{"add": item}` when a log is made, `{"ack": [ids]}` when the hub
 * acknowledges. Each append is fsynced before the caller continues, so a log the agent has acted
 * on survives a power cut. On open the journal is replayed; a torn last line (power lost in the
 * middle of a write) is cut off. The journal is rewritten (temp file, fsync, rename) once most of
 * it is acknowledged items.
 */
export class LogQueue {
  private readonly items = new Map<string, LogItem>();
  private handle: FileHandle | null = null;
  private lines = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  private readonly file: string;
  private readonly compactAfter: number;

  constructor(private readonly options: LogQueueOptions) {
    this.file = join(options.dir, JOURNAL);
    this.compactAfter = options.compactAfter ?? 1000;
  }

  async start(): Promise<void> {
    await mkdir(this.options.dir, { recursive: true });
    let text = '';
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const good = this.replay(text);
    this.handle = await open(this.file, 'a+');
    if (good < Buffer.byteLength(text)) {
      // Cut the torn tail so the next append starts on a fresh line.
      await this.handle.truncate(good);
      await this.handle.sync();
    }
    if (this.items.size > 0)
      this.options.logger.info({ pending: this.items.size }, 'log queue: logs waiting for the hub');
  }

  async stop(): Promise<void> {
    await this.chain.catch(() => {});
    await this.handle?.close();
    this.handle = null;
  }

  /** Items not yet acknowledged, oldest first. */
  pending(): LogItem[] {
    return [...this.items.values()];
  }

  get size(): number {
    return this.items.size;
  }

  has(id: string): boolean {
    return this.items.has(id);
  }

  /** Called after every durable append. */
  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds an item; resolves once it is on disk. */
  async append(item: LogItem): Promise<void> {
    const parsed = LogItem.parse(item);
    await this.write({ add: parsed }, () => this.items.set(parsed.id, parsed));
    for (const listener of this.listeners) listener();
  }

  /** Removes the acknowledged items; ids not in the queue are ignored. Returns how many went. */
  async ack(ids: readonly string[]): Promise<number> {
    const known = [...new Set(ids)].filter((id) => this.items.has(id));
    if (known.length === 0) return 0;
    await this.write({ ack: known }, () => {
      for (const id of known) this.items.delete(id);
    });
    if (this.lines - this.items.size > this.compactAfter) await this.compact();
    return known.length;
  }

  /** Replays the journal; returns the byte length of the good part. */
  private replay(text: string): number {
    let offset = 0;
    let good = 0;
    const raw = text.split('\n');
    for (const [index, line] of raw.entries()) {
      const isLast = index === raw.length - 1;
      const length = Buffer.byteLength(line) + (isLast ? 0 : 1);
      offset += length;
      if (line.trim() === '') {
        if (!isLast) good = offset;
        continue;
      }
      let entry: JournalLine | null = null;
      try {
        entry = JSON.parse(line) as JournalLine;
      } catch {
        entry = null;
      }
      if (isLast && (entry === null || !text.endsWith('\n'))) {
        // A line without its newline was never completely written (appends end with "\n").
        this.options.logger.warn({ file: this.file }, 'log queue: dropping a torn last journal line');
        break;
      }
      good = offset;
      this.lines++;
      if (entry === null) {
        this.options.logger.error(
          { file: this.file, line: index + 1 },
          'log queue: unreadable journal line skipped',
        );
      } else if ('add' in entry) {
        const item = LogItem.safeParse(entry.add);
        if (item.success) this.items.set(item.data.id, item.data);
        else this.options.logger.error({ line: index + 1 }, 'log queue: invalid item in journal skipped');
      } else if ('ack' in entry && Array.isArray(entry.ack)) {
        for (const id of entry.ack) this.items.delete(id);
      }
    }
    return good;
  }

  /** Appends one line and applies it to memory once it is on disk, in journal order. */
  private write(entry: JournalLine, apply: () => void): Promise<void> {
    const run = this.chain.then(async () => {
      if (!this.handle) throw new Error('log queue is not open');
      await this.handle.appendFile(`${JSON.stringify(entry)}\n`);
      await this.handle.datasync();
      this.lines++;
      apply();
    });
    this.chain = run.catch(() => {});
    return run;
  }

  private compact(): Promise<void> {
    const run = this.chain.then(async () => {
      const temp = `${this.file}.tmp`;
      const body = this.pending()
        .map((item) => `${JSON.stringify({ add: item })}\n`)
        .join('');
      const out = await open(temp, 'w');
      try {
        await out.writeFile(body);
        await out.sync();
      } finally {
        await out.close();
      }
      await rename(temp, this.file);
      await syncDir(this.options.dir);
      await this.handle?.close();
      this.handle = await open(this.file, 'a+');
      this.lines = this.items.size;
    });
    this.chain = run.catch(() => {});
    return run;
  }
}
