import { sql } from 'kysely';
import { migration } from './migration.js';

/**
 * The running sessions: allowed logs not yet stopped, by resource. A resource's state (the live
 * channel's snapshot and each change, switch-off, a relay's state report) asks for its newest
 * running session; with only the (resource, id) index that walked back through every log of the
 * resource, all of them for a door (its logs stop at once), so the question grew with the
 * history. This index holds only the few running sessions.
 */
export const openSessions = migration(async (db) => {
  await db.schema
    .createIndex('resource_logs_open_sessions_idx')
    .on('resource_logs')
    .columns(['resource', 'id'])
    .where(sql.ref('type'), '=', 'allowed')
    .where(sql.ref('stoppedAt'), 'is', null)
    .execute();
});
