import type { KeyType } from '@makerspace/shared/agent';

/** One card read: the key type and its token as upper-case hex. */
export interface CardRead {
  type: KeyType;
  token: string;
}

/** A key-card reader; calls onCard once per tap (held cards are debounced). */
export interface CardReader {
  readonly description: string;
  start(onCard: (card: CardRead) => void): Promise<void>;
  stop(): Promise<void>;
}
