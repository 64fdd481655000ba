/** What went wrong, so the agent can decide (retry, report, stop) without parsing messages. */
export type HardwareErrorCode =
  | 'gpio-unavailable'
  | 'gpio-pin'
  | 'port-not-found'
  | 'port-permission'
  | 'port-open'
  | 'port-closed'
  | 'timeout'
  | 'state-file'
  | 'invalid-card'
  | 'device-unreachable'
  | 'device-auth'
  | 'device-error';

/**
 * One error type for every driver. Messages name the device and, where the operator can fix
 * something, what to do: the agent logs them as they are.
 */
export class HardwareError extends Error {
  constructor(
    public readonly code: HardwareErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HardwareError';
  }
}

/**
 * The few logger methods the drivers use. A pino logger (shared's createLogger) fits; tests pass
 * a recorder. Drivers take it as a dependency rather than importing a module-level logger.
 */
export interface HardwareLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const noop = () => {};

/** Used when the caller passes no logger: drivers stay quiet rather than printing to stdout. */
export const silentLogger: HardwareLogger = { debug: noop, info: noop, warn: noop, error: noop };

/** Rejects with a `timeout` HardwareError when `promise` does not settle within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HardwareError('timeout', `${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
