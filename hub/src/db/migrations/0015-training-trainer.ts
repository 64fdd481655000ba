import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

/** Who gave a member's training (a name: trainers need not be members). */
export function trainingTrainer(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('member_trainings').addColumn('trainer', 'text').execute();
    },
  };
}
