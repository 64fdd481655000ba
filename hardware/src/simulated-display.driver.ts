import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Display } from './display.js';
import { HardwareError } from './hardware.errors.js';
import { lcdPlainText } from './hd44780.frames.js';

/** What the simulated display's file holds; demos and tests read it. */
export interface SimulatedDisplayFile {
  lines: string[];
  at: string;
}

export interface SimulatedDisplayOptions {
  file: string;
  columns: number;
  rows: number;
  now?: () => Date;
}

/**
 * A display without hardware: the lines an LCD of the same size would show (same character set,
 * same cut), written as JSON to a file, atomically (temporary file renamed over the old one).
 */
export class SimulatedDisplay implements Display {
  readonly description: string;
  readonly columns: number;
  readonly rows: number;
  private opened = false;
  private writes = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SimulatedDisplayOptions) {
    this.columns = options.columns;
    this.rows = options.rows;
    this.description = `simulated ${options.columns}x${options.rows} display (in ${options.file})`;
  }

  async open(): Promise<void> {
    if (this.opened) return;
    try {
      await mkdir(dirname(this.options.file), { recursive: true });
    } catch (err) {
      throw new HardwareError(
        'state-file',
        `simulated display: cannot create the directory of ${this.options.file}`,
        {
          cause: err,
        },
      );
    }
    this.opened = true;
    await this.show([]);
  }

  show(lines: readonly string[]): Promise<void> {
    const rows = Array.from({ length: this.rows }, (_, row) =>
      lcdPlainText(lines[row] ?? '')
        .slice(0, this.columns)
        .trimEnd(),
    );
    return this.enqueue(() => this.write(rows));
  }

  async close(): Promise<void> {
    if (!this.opened) return;
    await this.enqueue(() => this.write(Array.from({ length: this.rows }, () => '')));
    this.opened = false;
  }

  private async write(lines: string[]): Promise<void> {
    if (!this.opened) throw new HardwareError('port-closed', 'simulated display: show() before open()');
    const file = this.options.file;
    const body: SimulatedDisplayFile = {
      lines,
      at: (this.options.now ?? (() => new Date()))().toISOString(),
    };
    const temp = `${file}.${process.pid}.${++this.writes}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify(body)}\n`);
      await rename(temp, file);
    } catch (err) {
      throw new HardwareError(
        'state-file',
        `simulated display: cannot write ${file}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }
}
