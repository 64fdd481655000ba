import { STATUS_CODES } from 'node:http';

/**
 * The one catalogue of errors that handlers throw. The error handler turns each into Fabman's
 * error body `{statusCode, error, message, data?}`; handlers never format errors by hand.
 */
export class HttpError extends Error {
  constructor(
    public readonly statusCode: number,
    message: string,
    public readonly data?: Record<string, unknown>,
    public readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  get error(): string {
    return STATUS_CODES[this.statusCode] ?? 'Error';
  }
}

export const badRequest = (message: string, data?: Record<string, unknown>) =>
  new HttpError(400, message, data);
export const unauthorized = (message = 'Missing or invalid API token') =>
  new HttpError(401, message, undefined, { 'www-authenticate': 'Bearer realm="makerspace-hub"' });
export const forbidden = (message: string, data?: Record<string, unknown>) =>
  new HttpError(403, message, data);
export const notFound = (what = 'Record') => new HttpError(404, `${what} not found`);
export const conflict = (message: string, data?: Record<string, unknown>) =>
  new HttpError(409, message, data);
export const staleLockVersion = () =>
  new HttpError(409, 'The record was changed by someone else (stale lockVersion); reload it and try again', {
    staleLockVersion: true,
  });
export const unprocessable = (message: string, data?: Record<string, unknown>) =>
  new HttpError(422, message, data);
export const tooManyRequests = (message: string, data?: Record<string, unknown>) =>
  new HttpError(429, message, data, { 'retry-after': '2' });
export const serviceUnavailable = (message: string, data?: Record<string, unknown>) =>
  new HttpError(503, message, data);
export const gatewayTimeout = (message: string, data?: Record<string, unknown>) =>
  new HttpError(504, message, data);

export interface ErrorEntry {
  message: string;
  /** The field the entry is about (dotted path in the body, query or path), for bad input. */
  field?: string;
  /** The machine-readable reason (`data.reason`), when the error has one. */
  reason?: string;
}

/**
 * The `errors` list that commercial clients read beside `message`: one entry per field for bad
 * input (from `data.validation`, several problems of one field joined), else one entry for the
 * error itself.
 */
export function errorEntries(message: string, data?: Record<string, unknown>): ErrorEntry[] {
  const validation = data?.validation;
  if (Array.isArray(validation) && validation.length > 0) {
    const byField = new Map<string, string[]>();
    for (const v of validation as { path?: unknown; message?: unknown }[]) {
      const field = typeof v?.path === 'string' ? v.path : '';
      const text = typeof v?.message === 'string' ? v.message : 'is not valid';
      const list = byField.get(field) ?? [];
      if (!list.includes(text)) list.push(text);
      byField.set(field, list);
    }
    return [...byField].map(([field, texts]) => ({
      message: texts.join('; '),
      ...(field ? { field } : {}),
    }));
  }
  const reason = typeof data?.reason === 'string' ? data.reason : undefined;
  return [{ message, ...(reason ? { reason } : {}) }];
}

export function errorBody(statusCode: number, message: string, data?: Record<string, unknown>) {
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message,
    ...(data ? { data } : {}),
    errors: errorEntries(message, data),
  };
}
