import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * A second device with the same bridge key (a cloned SD card): when the hub last saw the two
 * take the connection from each other, and their addresses (a JSON array), for the bridge record.
 */
export function bridgeDuplicates(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('bridges').addColumn('duplicateDeviceAt', 'text').execute();
      await db.schema.alterTable('bridges').addColumn('duplicateDeviceAddresses', 'text').execute();
    },
  };
}
