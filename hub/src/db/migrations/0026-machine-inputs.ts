import { migration } from './migration.js';

/**
 * Machines that sense whether they are busy (docs/HARDWARE.md, "Inputs"): per resource the idle
 * switch-off (`idleTimeoutSeconds`, null: none; `idleWarningSeconds` of warning before the cut,
 * null: 60) and `busyGraceSeconds` (how long a busy machine runs past its maximum duration,
 * null: none); per bridge the inputs its agent last reported (`inputs`, the protocol's inputs
 * message as JSON) and when.
 */
export const machineInputs = migration(async (db) => {
  await db.schema.alterTable('resources').addColumn('idleTimeoutSeconds', 'integer').execute();
  await db.schema.alterTable('resources').addColumn('idleWarningSeconds', 'integer').execute();
  await db.schema.alterTable('resources').addColumn('busyGraceSeconds', 'integer').execute();
  await db.schema.alterTable('bridges').addColumn('inputs', 'text').execute();
  await db.schema.alterTable('bridges').addColumn('inputsAt', 'text').execute();
});
