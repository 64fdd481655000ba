import { z } from 'zod';

/** Record ids are positive integers. */
export const Id = z.number().int().positive();
/** ISO 8601 timestamp with milliseconds and Z. */
export const Timestamp = z.string().describe('ISO 8601 timestamp, e.g. 2026-01-31T09:00:00.000Z');
/** Calendar date YYYY-MM-DD. */
export const DateString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD')
  .refine(
    (s) =>
      !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    'not a real date',
  );

/** Money: a decimal string ("12.34"); numbers are accepted and turned into strings. */
export const Money = z
  .union([
    z.string().regex(/^-?\d{1,12}(\.\d{1,4})?$/, 'expected a decimal such as "12.34"'),
    z.number().finite(),
  ])
  .transform((v) => (typeof v === 'number' ? String(v) : v));

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
