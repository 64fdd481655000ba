import { migration } from './migration.js';

/**
 * Two resource fields the console sets: `maxDuration` (seconds a session may run at most; null:
 * no limit of its own) and `lockReason` (why a locked resource is locked, in words the member
 * reads on the machine page; `maintenanceNotes` stay the admins' own notes).
 */
export const resourceLimits = migration(async (db) => {
  await db.schema.alterTable('resources').addColumn('maxDuration', 'integer').execute();
  await db.schema.alterTable('resources').addColumn('lockReason', 'text').execute();
});
