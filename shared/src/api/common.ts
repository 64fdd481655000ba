import { z } from 'zod';

/** Record ids are positive integers. */
export const Id = z.number().int().positive();
/** ISO 8601 timestamp with milliseconds and Z. */
export const Timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}([T ]|$)/, 'expected an ISO 8601 timestamp such as 2026-01-31T09:00:00.000Z')
  .refine((s) => !Number.isNaN(Date.parse(s)), 'not a real point in time')
  .describe('ISO 8601 timestamp, e.g. 2026-01-31T09:00:00.000Z');
/** Calendar date YYYY-MM-DD. */
export const DateString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD')
  .refine(
    (s) =>
      !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    'not a real date',
  );

/** Largest amount money fields hold: 12 digits before the point (billing/money.ts). */
const MONEY_LIMIT = 1e12;

/**
 * Money: a decimal string ("12.34") with up to 12 digits before and 4 after the point. Numbers
 * are accepted, rounded to 4 decimals and turned into strings; a number beyond the range
 * (1e308, 2^63) is a 400, never an error deeper down.
 */
export const Money = z
  .union([
    z.string().regex(/^-?\d{1,12}(\.\d{1,4})?$/, 'expected a decimal such as "12.34"'),
    z
      .number()
      .finite()
      .refine((v) => Math.abs(v) < MONEY_LIMIT, 'must be less than 1000000000000 in size'),
  ])
  .transform((v) => (typeof v === 'number' ? moneyText(v) : v));

function moneyText(v: number): string {
  const text = v.toFixed(4).replace(/\.?0+$/, '');
  return text === '-0' || text === '-' || text === '' ? '0' : text;
}

/** A free-form JSON object of the integration's own data, at most `maxBytes` when serialised. */
export function Metadata(maxBytes: number) {
  return z
    .record(z.string(), z.unknown())
    .refine(
      (v) => JSON.stringify(v).length <= maxBytes,
      `metadata must be at most ${maxBytes} bytes of JSON`,
    );
}

/** Columns every editable record has. */
export const Stamps = {
  lockVersion: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  updatedBy: Id.nullable(),
};

/** PUT bodies carry the lockVersion the client last read (optimistic locking: 409 when stale). */
export const LockVersion = z.number().int().min(0).describe('The lockVersion the client last read');
