import { columns, required, withCreation, withDefaults } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, sideTable } from './tables.js';

/**
 * Sign-up (docs/DECISIONS.md, "Sign-up"): a space's sign-up settings, the versions of its house
 * rules and waiver, who accepted which version, and the sign-ups waiting for the checklist.
 */
export const signUps = migration(async (db, dialect) => {
  await sideTable(db, 'sign_up_settings', 'space', 'spaces.id')
    .$call(withDefaults('integer', { enabled: 0, requireKeyCard: 0, requireFirstPayment: 0 }))
    .$call(withDefaults('text', { packages: '[]' }))
    .addColumn('requireTraining', 'integer', (c) => c.references('training_courses.id').onDelete('set null'))
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addColumn('updatedBy', 'integer')
    .execute();

  await withCreation(
    accountTable(db, 'house_rules', dialect, { space: 'spaces.id' })
      .addColumn('version', 'integer', (c) => c.notNull())
      .$call(required('text', 'houseRules', 'waiver')),
  ).execute();
  await index(db, 'house_rules', ['space', 'version'], true);

  await accountTable(db, 'house_rules_acceptances', dialect, { space: 'spaces.id', member: 'members.id' })
    .$call(
      columns({
        version: 'integer not null',
        acceptedAt: 'text not null',
        via: 'text not null',
      }),
    )
    .execute();
  await index(db, 'house_rules_acceptances', ['member', 'version'], true);
  await index(db, 'house_rules_acceptances', ['space', 'version']);

  await accountTable(db, 'sign_ups', dialect, { space: 'spaces.id' })
    .addColumn('member', 'integer', (c) => c.notNull().unique().references('members.id').onDelete('cascade'))
    .addColumn('package', 'integer', (c) => c.references('packages.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .$call(
      columns({
        emailConfirmedAt: 'text',
        emailConfirmedBy: 'text',
        confirmTokenHash: 'text',
        confirmExpiresAt: 'text',
        ipAddress: 'text',
        createdAt: 'text not null',
        decidedAt: 'text',
        decidedBy: 'integer',
        rejectReason: 'text',
      }),
    )
    .execute();
  await index(db, 'sign_ups', ['account', 'status']);
  await index(db, 'sign_ups', ['confirmTokenHash'], true);
});
