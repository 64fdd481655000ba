import { cascadeTo, withCreation } from './columns.js';
import { migration } from './migration.js';
import { index, linkTable, withId } from './tables.js';

/**
 * Trainers: members who record trainings of given courses themselves (`course_trainers`), and
 * which member signed a training (`member_trainings.signedBy`; null for those an admin recorded
 * before trainers existed, or recorded by an API key without a member), and `training_taps`.
 */
export const courseTrainers = migration(async (db, dialect) => {
  await linkTable(db, 'course_trainers', ['course', 'training_courses.id'], ['member', 'members.id'], (t) =>
    withCreation(t.addColumn('account', 'integer', cascadeTo('accounts.id'))),
  );
  await db.schema
    .alterTable('member_trainings')
    .addColumn('signedBy', 'integer', (c) => c.references('members.id').onDelete('set null'))
    .execute();
  await index(db, 'member_trainings', ['signedBy']);
  // A trainer's "the trainee taps their card now": the next card of another member at the
  // resource records the training (waiting a few minutes at most).
  await withId(db.schema.createTable('training_taps'), dialect)
    .addColumn('account', 'integer', cascadeTo('accounts.id'))
    .addColumn('resource', 'integer', cascadeTo('resources.id'))
    .addColumn('trainingCourse', 'integer', (c) =>
      c.notNull().references('training_courses.id').onDelete('cascade'),
    )
    .addColumn('trainer', 'integer', cascadeTo('members.id'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .addColumn('trainee', 'integer', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('memberTraining', 'integer', (c) => c.references('member_trainings.id').onDelete('set null'))
    .execute();
  await index(db, 'training_taps', ['resource', 'state']);
});
