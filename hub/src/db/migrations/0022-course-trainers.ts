import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { cascadeTo, index } from './helpers.js';

/**
 * Trainers: members who record trainings of given courses themselves (`course_trainers`), and
 * which member signed a training (`member_trainings.signedBy`; null for those an admin recorded
 * before trainers existed, or recorded by an API key without a member).
 */
export function courseTrainers(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('course_trainers')
        .addColumn('course', 'integer', (c) =>
          c.notNull().references('training_courses.id').onDelete('cascade'),
        )
        .addColumn('member', 'integer', cascadeTo('members.id'))
        .addColumn('account', 'integer', cascadeTo('accounts.id'))
        .addColumn('createdAt', 'text', (c) => c.notNull())
        .addColumn('createdBy', 'integer')
        .addPrimaryKeyConstraint('course_trainers_pk', ['course', 'member'])
        .execute();
      await index(db, 'course_trainers', ['member']);
      await db.schema
        .alterTable('member_trainings')
        .addColumn('signedBy', 'integer', (c) => c.references('members.id').onDelete('set null'))
        .execute();
      await index(db, 'member_trainings', ['signedBy']);
    },
  };
}
