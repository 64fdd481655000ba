import { texts, withCreation, withStamps } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index } from './tables.js';

/** Member keys (key cards) and key assignments (the next unknown card at a bridge becomes a member's key). */
export const keys = migration(async (db, dialect) => {
  await withStamps(
    accountTable(db, 'member_keys', dialect)
      // One key per member (Fabman's /members/{id}/key is a single record).
      .addColumn('member', 'integer', (c) =>
        c.notNull().unique().references('members.id').onDelete('cascade'),
      )
      .addColumn('type', 'text', (c) => c.notNull())
      // The card UID as upper-case hex: not a secret, so stored as read.
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('active')),
  ).execute();
  // A card opens for one member of an account only.
  await index(db, 'member_keys', ['account', 'token'], true);

  await accountTable(db, 'key_assignments', dialect, { member: 'members.id' })
    .addColumn('resource', 'integer', (c) => c.references('resources.id').onDelete('cascade'))
    // 'pending' until a card is assigned ('assigned'); expired when expiresAt has passed.
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .$call(texts('keyType', 'keyToken', 'assignedAt'))
    .$call(withCreation)
    .execute();
  await index(db, 'key_assignments', ['resource', 'state', 'expiresAt']);
});
