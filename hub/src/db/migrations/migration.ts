import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * A migration built for the dialect: `export const hubMeta = migration(async (db) => { ... })`.
 * Most only go up; `down` undoes one where that is possible.
 */
export function migration(
  up: (db: Kysely<any>, dialect: DialectName) => Promise<void>,
  down?: (db: Kysely<any>) => Promise<void>,
) {
  return (dialect: DialectName): Migration => ({ up: (db) => up(db, dialect), ...(down ? { down } : {}) });
}
