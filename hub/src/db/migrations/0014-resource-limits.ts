import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * Two resource fields the console sets: `maxDuration` (seconds a session may run at most; null:
 * no limit of its own) and `lockReason` (why a locked resource is locked, in words the member
 * reads on the machine page; `maintenanceNotes` stay the admins' own notes).
 */
export function resourceLimits(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('resources').addColumn('maxDuration', 'integer').execute();
      await db.schema.alterTable('resources').addColumn('lockReason', 'text').execute();
    },
  };
}
