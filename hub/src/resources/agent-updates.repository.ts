import type { Selectable } from 'kysely';
import { type Db, qualified, selectWhere, updateWhere } from '../db/crud.js';
import type { AgentUpdatesTable } from '../db/schema.js';

export type AgentUpdateRow = Selectable<AgentUpdatesTable>;

/*
 * The `agent_updates` table (migration 0027): per bridge, the last update started and how far
 * its agent got. Queries only; agent-updates.ts holds what they mean.
 */

/** The bridges of an account (every account's for null), with the resource's name, by name. */
export async function bridgesForUpdates(db: Db, account: number | null, resources?: readonly number[]) {
  let query = db
    .selectFrom('bridges')
    .innerJoin('resources', 'resources.id', 'bridges.resource')
    .select([
      ...qualified('bridges', ['resource', 'account']),
      'resources.name as name',
      ...qualified('bridges', ['offline', 'agentVersion']),
    ])
    .orderBy('resources.name')
    .orderBy('bridges.resource');
  if (account !== null) query = query.where('bridges.account', '=', account);
  if (resources) {
    if (resources.length === 0) return [];
    query = query.where('bridges.resource', 'in', [...resources]);
  }
  return query.execute();
}

export async function agentUpdatesOf(db: Db, resources: readonly number[]): Promise<AgentUpdateRow[]> {
  if (resources.length === 0) return [];
  return selectWhere(db, 'agent_updates', { resource: resources });
}

/** A new update for the bridge replaces the one before. */
export async function putAgentUpdate(db: Db, row: AgentUpdateRow): Promise<void> {
  const { resource, ...rest } = row;
  await db
    .insertInto('agent_updates')
    .values(row)
    .onConflict((oc) => oc.column('resource').doUpdateSet(rest))
    .execute();
}

/** The agent's step of the update with this id; false when the bridge's last update is another one. */
export async function setAgentUpdateStep(
  db: Db,
  resource: number,
  updateId: string,
  change: { step: string; error: string | null; updatedAt: string },
): Promise<boolean> {
  return (await updateWhere(db, 'agent_updates', { resource, updateId }, change)) > 0;
}
