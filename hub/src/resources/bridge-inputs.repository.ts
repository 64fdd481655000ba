import type { Db } from '../db/crud.js';
import type { FastReads } from '../db/fast-reads.js';

/* The inputs a bridge's agent last reported (`bridges.inputs`, migration 0026). */

/** The stored inputs message (JSON) of a bridge, and whether the bridge is online. */
export function bridgeInputsRow(reads: FastReads, resourceId: number) {
  return reads.first<{ inputs: string | null; offline: number }>(
    'select "inputs", "offline" from "bridges" where "resource" = ?',
    [resourceId],
  );
}

export async function setBridgeInputs(db: Db, resourceId: number, inputs: string, at: string): Promise<void> {
  await db.updateTable('bridges').set({ inputs, inputsAt: at }).where('resource', '=', resourceId).execute();
}
