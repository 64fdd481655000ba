import { defined, flag } from '../db/crud.js';

/*
 * Writes and scopes of the spaces, bookings and resources areas (their records are mapped with
 * db/records.ts).
 */

/** The columns of an API body: without lockVersion, only what was sent, the named booleans as 0/1. */
export function writeColumns(input: Record<string, unknown>, booleans: readonly string[]) {
  const { lockVersion: _, ...fields } = input;
  for (const key of booleans) fields[key] = flag(fields[key] as boolean | undefined);
  return defined(fields);
}

export { accountOrOwn } from './bookings.repository.js';
