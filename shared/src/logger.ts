import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger };

export interface LoggerSettings {
  name: string;
  level?: string;
  /** Pretty output; defaults to true only when stdout is a terminal. */
  pretty?: boolean;
  /** Where JSON lines go (tests pass a stream); stdout by default. */
  destination?: NodeJS.WritableStream;
}

/**
 * Paths whose values never reach a log line (secrets). A bare `code` is not among them: errors
 * carry theirs there (ECONNREFUSED, SQLITE_FULL) and an operator needs to see it; a switch-on
 * code is only ever under `switchOnCode` or a request body's `code`.
 */
export const redactedPaths = [
  'token',
  'apiKey',
  'password',
  'secret',
  'switchOnCode',
  '*.token',
  '*.apiKey',
  '*.password',
  '*.secret',
  '*.switchOnCode',
  'body.code',
  '*.body.code',
  'req.headers.authorization',
  'headers.authorization',
];

/** One logger factory for both programs: JSON lines, pretty only on a TTY. */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    name: settings.name,
    level: settings.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: redactedPaths, censor: '[redacted]' },
  };
  const pretty = settings.pretty ?? (process.stdout.isTTY === true && !settings.destination);
  if (pretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return settings.destination ? pino(options, settings.destination as any) : pino(options);
}
