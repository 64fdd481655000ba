import { KeyType } from '@makerspace/shared/agent';
import type { CardRead, CardReader } from './card-reader.js';
import { HardwareError, type HardwareLogger, silentLogger } from './hardware.errors.js';

/**
 * A card reader without hardware. The agent calls inject() when `makerspace-agent tap` sends a
 * tap over its local socket; every injected tap counts (no debounce: a person typing the command
 * twice means two taps).
 */
export class SimulatedCardReader implements CardReader {
  readonly description = 'simulated card reader (taps via makerspace-agent tap)';
  private onCard: ((card: CardRead) => void) | null = null;
  private readonly logger: HardwareLogger;

  constructor(options: { logger?: HardwareLogger } = {}) {
    this.logger = options.logger ?? silentLogger;
  }

  async start(onCard: (card: CardRead) => void): Promise<void> {
    this.onCard = onCard;
  }

  async stop(): Promise<void> {
    this.onCard = null;
  }

  /**
   * Delivers one tap. The token is normalised to upper-case hex like a real reader's; a bad type
   * or token throws a HardwareError ('invalid-card') that the agent can send back to the tap
   * command. Returns false when the reader is not started (the tap goes nowhere).
   */
  inject(card: { type?: string; token: string }): boolean {
    const read = normaliseCard(card);
    if (!this.onCard) {
      this.logger.warn({ type: read.type }, 'simulated card tap while the reader is stopped; ignored');
      return false;
    }
    this.onCard(read);
    return true;
  }
}

/** Validates and normalises a tap typed by a person: default type em4102, token upper-case hex. */
export function normaliseCard(card: { type?: string; token: string }): CardRead {
  const type = KeyType.safeParse(card.type ?? 'em4102');
  if (!type.success) {
    throw new HardwareError(
      'invalid-card',
      `unknown key type "${card.type}"; expected one of ${KeyType.options.join(', ')}`,
    );
  }
  const token = typeof card.token === 'string' ? card.token.trim() : '';
  if (!/^[0-9a-fA-F]{1,64}$/.test(token)) {
    throw new HardwareError(
      'invalid-card',
      `a card token is 1 to 64 hex digits, got "${String(card.token)}"`,
    );
  }
  return { type: type.data, token: token.toUpperCase() };
}

/** Lets the agent find the reader it can inject into without knowing the config. */
export function isSimulatedCardReader(reader: CardReader): reader is SimulatedCardReader {
  return reader instanceof SimulatedCardReader;
}
