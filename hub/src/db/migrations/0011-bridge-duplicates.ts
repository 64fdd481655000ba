import { migration } from './migration.js';

/**
 * A second device with the same bridge key (a cloned SD card): when the hub last saw the two
 * take the connection from each other, and their addresses (a JSON array), for the bridge record.
 */
export const bridgeDuplicates = migration(async (db) => {
  await db.schema.alterTable('bridges').addColumn('duplicateDeviceAt', 'text').execute();
  await db.schema.alterTable('bridges').addColumn('duplicateDeviceAddresses', 'text').execute();
});
