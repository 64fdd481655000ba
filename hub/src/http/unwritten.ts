import { z } from 'zod';

/**
 * A member's one-of record (device, payment account, payment method) that was never written, as
 * Fabman answers it: an object with `member` and every other field null. Its clients call
 * `.json()` on the answer, which an empty 204 breaks. The schema is the record's with every field
 * but `member` nullable.
 */
export function unwrittenRecord(record: z.ZodObject) {
  const others = Object.keys(record.shape).filter((key) => key !== 'member');
  const shape: Record<string, z.ZodType> = { ...record.shape };
  for (const key of others) shape[key] = (record.shape[key] as z.ZodType).nullable();
  return {
    schema: z.object(shape).describe('Every field but `member` is null while nothing was written'),
    of: (member: number) => ({ member, ...Object.fromEntries(others.map((key) => [key, null])) }),
  };
}
