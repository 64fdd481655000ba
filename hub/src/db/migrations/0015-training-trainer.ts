import { migration } from './migration.js';

/** Who gave a member's training (a name: trainers need not be members). */
export const trainingTrainer = migration(async (db) => {
  await db.schema.alterTable('member_trainings').addColumn('trainer', 'text').execute();
});
