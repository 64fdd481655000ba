import { bool } from '../db/crud.js';

/*
 * Row-to-record mapping for the spaces, bookings and resources areas: most record fields are
 * their columns as stored; booleans are stored as 0/1 in both dialects. Kept small and local
 * (billing has a mapper of its own) so the two can become one later.
 */

/** The stamps every record of these areas carries. */
export const stamps = ['lockVersion', 'createdAt', 'updatedAt', 'updatedBy'] as const;

/** The named columns of a row as they are. */
export function pick<R extends object, K extends keyof R>(row: R, keys: readonly K[]): Pick<R, K> {
  const out = {} as Pick<R, K>;
  for (const key of keys) out[key] = row[key];
  return out;
}

/** The named 0/1 columns of a row as true/false. */
export function flags<R extends object, K extends keyof R>(
  row: R,
  keys: readonly K[],
): { [P in K]: boolean } {
  const out = {} as { [P in K]: boolean };
  for (const key of keys) out[key] = bool(row[key]);
  return out;
}
