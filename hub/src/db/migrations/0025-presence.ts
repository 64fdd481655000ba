import { columns, withCreation, withStamps } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, sideTable } from './tables.js';

/**
 * Presence and door modes (docs/DECISIONS.md, "Presence and door modes"): entrances
 * (`resources.entrance`), how a door is held unlocked (`resources.unlockMode`), how many people a
 * space holds (`spaces.occupancyLimit`), members' stays (`check_ins`), whether a member is shown
 * by name while in (`presence_settings`), and an admin's "lock now" until a door's window ends
 * (`door_locks`).
 */
export const presence = migration(async (db, dialect) => {
  await db.schema
    .alterTable('resources')
    .addColumn('entrance', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('resources')
    .addColumn('unlockMode', 'text', (c) => c.notNull().defaultTo('normal'))
    .execute();
  await db.schema.alterTable('spaces').addColumn('occupancyLimit', 'integer').execute();
  await withStamps(
    accountTable(db, 'check_ins', dialect, { space: 'spaces.id', member: 'members.id' })
      .$call(
        columns({
          state: 'text not null',
          checkedInAt: 'text not null',
          checkedOutAt: 'text',
          checkInMethod: 'text not null',
          checkOutMethod: 'text',
        }),
      )
      .addColumn('checkInResource', 'integer', (c) => c.references('resources.id').onDelete('set null'))
      .addColumn('checkOutResource', 'integer', (c) => c.references('resources.id').onDelete('set null')),
  ).execute();
  await index(db, 'check_ins', ['space', 'state']);
  await index(db, 'check_ins', ['member', 'state']);
  await index(db, 'check_ins', ['account', 'checkedInAt']);
  await sideTable(db, 'presence_settings', 'member', 'members.id')
    .addColumn('showPresence', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await withCreation(
    sideTable(db, 'door_locks', 'resource', 'resources.id').addColumn('lockedUntil', 'text', (c) =>
      c.notNull(),
    ),
  ).execute();
});
