import type { KeyType } from '@makerspace/shared/agent';
import { CardDebouncer, DEFAULT_DEBOUNCE_MS } from './card-debounce.js';
import { CardLineParser } from './card-lines.parser.js';
import type { CardRead, CardReader } from './card-reader.js';
import { type HardwareLogger, silentLogger } from './hardware.errors.js';
import { Rdm6300Parser } from './rdm6300.frames.js';
import {
  closeSerialPort,
  openSerialPort,
  type SerialPortFactory,
  type SerialPortLike,
} from './serial-port.link.js';

/** Turns serial chunks into card reads; one per connection, so a reconnect starts clean. */
export interface CardDecoder {
  push(chunk: Buffer): CardRead[];
}

export interface SerialCardReaderOptions {
  path: string;
  baudRate: number;
  /** Reads of the same card within this many ms of its previous read are one tap. */
  debounceMs?: number;
  /** Milliseconds clock for the debounce; tests pass a fake. */
  now?: () => number;
  logger?: HardwareLogger;
  openPort?: SerialPortFactory;
  openTimeoutMs?: number;
  /** Delay between attempts to reopen a port that went away (USB reader unplugged). */
  reconnectMs?: number;
}

/**
 * A card reader on a serial port: port + decoder + debounce. If the port goes away while running
 * it retries until stop(), so replugging the reader is enough.
 */
export class SerialCardReader implements CardReader {
  private port: SerialPortLike | null = null;
  private onCard: ((card: CardRead) => void) | null = null;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly debouncer: CardDebouncer;
  protected readonly logger: HardwareLogger;
  /** Frames or lines dropped as garbage since start (bad checksum, not hex, ...). */
  rejectedReads = 0;

  constructor(
    readonly description: string,
    private readonly device: string,
    private readonly options: SerialCardReaderOptions,
    private readonly createDecoder: (onRejected: (detail: object) => void) => CardDecoder,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.debouncer = new CardDebouncer(options.debounceMs ?? DEFAULT_DEBOUNCE_MS, options.now);
  }

  async start(onCard: (card: CardRead) => void): Promise<void> {
    if (this.onCard) return;
    // Fail loudly at start (wrong path, no permission): that is a configuration problem.
    await this.connect();
    this.onCard = onCard;
  }

  async stop(): Promise<void> {
    this.onCard = null;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const port = this.port;
    this.port = null;
    if (port) await closeSerialPort(port);
  }

  private async connect(): Promise<void> {
    const port = await openSerialPort({
      path: this.options.path,
      baudRate: this.options.baudRate,
      device: this.device,
      openPort: this.options.openPort,
      timeoutMs: this.options.openTimeoutMs,
    });
    const decoder = this.createDecoder((detail) => {
      this.rejectedReads++;
      this.logger.warn({ ...detail, path: this.options.path }, `${this.device}: dropped unreadable input`);
    });
    port.on('data', (chunk: Buffer) => this.receive(decoder, chunk));
    port.on('error', (err: Error) =>
      this.logger.error({ err, path: this.options.path }, `${this.device}: port error`),
    );
    port.on('close', () => {
      if (this.port !== port) return; // closed by stop()
      this.port = null;
      this.logger.warn({ path: this.options.path }, `${this.device}: port closed unexpectedly, reconnecting`);
      this.scheduleReconnect();
    });
    this.port = port;
  }

  private receive(decoder: CardDecoder, chunk: Buffer): void {
    for (const card of decoder.push(chunk)) {
      if (!this.onCard || !this.debouncer.accept(card)) continue;
      try {
        this.onCard(card);
      } catch (err) {
        // A failing consumer must not stop the reader from seeing the next tap.
        this.logger.error({ err }, `${this.device}: card handler failed`);
      }
    }
  }

  private scheduleReconnect(): void {
    this.reconnectTimer = setTimeout(async () => {
      if (!this.onCard) return;
      try {
        await this.connect();
        if (!this.onCard) {
          // stop() ran while we were reopening.
          const port = this.port;
          this.port = null;
          if (port) await closeSerialPort(port);
          return;
        }
        this.logger.info({ path: this.options.path }, `${this.device}: reconnected`);
      } catch (err) {
        this.logger.debug({ err }, `${this.device}: reconnect failed, retrying`);
        this.scheduleReconnect();
      }
    }, this.options.reconnectMs ?? 2000);
    this.reconnectTimer.unref();
  }
}

/** RDM6300 125 kHz reader (EM4102 cards). */
export class Rdm6300Reader extends SerialCardReader {
  constructor(options: SerialCardReaderOptions) {
    super(`RDM6300 card reader on ${options.path}`, 'RDM6300 card reader', options, (onRejected) => {
      const parser = new Rdm6300Parser((frame) =>
        onRejected({ reason: frame.reason, bytes: frame.bytes.toString('hex') }),
      );
      return { push: (chunk) => parser.push(chunk).map((token) => ({ type: 'em4102', token })) };
    });
  }
}

/** A reader that sends one hex card id per line. */
export class SerialLinesReader extends SerialCardReader {
  constructor(options: SerialCardReaderOptions & { keyType: KeyType }) {
    super(
      `line card reader (${options.keyType}) on ${options.path}`,
      'line card reader',
      options,
      (onRejected) => {
        const parser = new CardLineParser((line) => onRejected({ reason: line.reason, line: line.text }));
        return { push: (chunk) => parser.push(chunk).map((token) => ({ type: options.keyType, token })) };
      },
    );
  }
}
