import { required, texts } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, sideTable } from './tables.js';

/**
 * Sign-in for people: password hashes, emailed one-use links, browser sessions and invitations.
 * Link tokens and session tokens are stored only as SHA-256 hashes.
 */
export const signIn = migration(async (db, dialect) => {
  await db.schema
    .createTable('member_passwords')
    .addColumn('member', 'integer', (c) => c.primaryKey().references('members.id').onDelete('cascade'))
    // argon2id in PHC string form (algorithm, parameters and salt travel with the hash).
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();

  await accountTable(db, 'sign_in_links', dialect, { member: 'members.id' })
    // 'signIn' | 'invitation' | 'passwordReset'
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('tokenHash', 'text', (c) => c.notNull().unique())
    .addColumn('next', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .addColumn('usedAt', 'text')
    .addColumn('createdBy', 'integer')
    .execute();
  await index(db, 'sign_in_links', ['member', 'purpose']);

  await accountTable(db, 'browser_sessions', dialect, { member: 'members.id' })
    .addColumn('tokenHash', 'text', (c) => c.notNull().unique())
    // 'password' | 'link'
    .$call(required('text', 'method', 'createdAt', 'lastSeenAt', 'expiresAt'))
    .$call(texts('revokedAt', 'userAgent', 'ipAddress'))
    .execute();
  await index(db, 'browser_sessions', ['member', 'expiresAt']);

  await sideTable(db, 'member_invitations', 'member', 'members.id')
    // 'invited' | 'accepted'
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('invitedBy', 'integer')
    .addColumn('invitedAt', 'text', (c) => c.notNull())
    .addColumn('acceptedAt', 'text')
    .execute();
});
