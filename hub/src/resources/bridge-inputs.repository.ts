import type { Db } from '../db/crud.js';

/* The inputs a bridge's agent last reported (`bridges.inputs`, migration 0026), as the agent's `inputs` message stores them; switch-on reads
 * them with the bridge's offline flag (sessions.repository.ts's `bridgeInputsRow`). */

export async function setBridgeInputs(db: Db, resourceId: number, inputs: string, at: string): Promise<void> {
  await db.updateTable('bridges').set({ inputs, inputsAt: at }).where('resource', '=', resourceId).execute();
}
