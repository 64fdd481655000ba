import type { Insertable } from 'kysely';
import { type Db, deleteWhere, firstWhere, insertReturning, qualified, selectWhere } from '../db/crud.js';
import type { ShadowDecisionsTable, ShadowReceiversTable } from '../db/schema.js';

export const memberRow = (db: Db, account: number, id: number) => firstWhere(db, 'members', { account, id });

export const resourceRow = (db: Db, account: number, id: number) =>
  firstWhere(db, 'resources', { account, id });

/** Of these logs of the source, those already compared. */
export async function comparedLogs(db: Db, source: string, logs: number[]): Promise<Set<number>> {
  const compared = await selectWhere(
    db,
    'shadow_decisions',
    { source, remoteLog: logs },
    { columns: ['remoteLog'] },
  );
  return new Set(compared.map((r) => r.remoteLog));
}

/** The time of the latest compared log of the source (where the next run goes on). */
export async function latestCompared(db: Db, source: string): Promise<string | null> {
  const row = await db
    .selectFrom('shadow_decisions')
    .select((eb) => eb.fn.max('at').as('at'))
    .where('source', '=', source)
    .executeTakeFirst();
  return (row?.at as string | null | undefined) ?? null;
}

/** Stores a compared decision; false when the log was compared already (nothing changes). */
export async function insertShadowDecision(db: Db, row: Insertable<ShadowDecisionsTable>): Promise<boolean> {
  const result = await db
    .insertInto('shadow_decisions')
    .values(row)
    .onConflict((oc) => oc.columns(['source', 'remoteLog']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Per source and resource: decisions compared and agreed. */
export async function agreementByResource(db: Db, account: number) {
  const keys = qualified('shadow_decisions', ['source', 'remoteResource', 'resource']);
  return db
    .selectFrom('shadow_decisions')
    .leftJoin('resources', 'resources.id', 'shadow_decisions.resource')
    .select((eb) => [
      ...keys,
      'resources.name as resourceName',
      eb.fn.countAll<number>().as('compared'),
      eb.fn.sum<number>('shadow_decisions.agrees').as('agreed'),
      eb.fn.max('shadow_decisions.at').as('latest'),
    ])
    .where('shadow_decisions.account', '=', account)
    .groupBy([...keys, 'resources.name'])
    .orderBy('shadow_decisions.source')
    .orderBy('shadow_decisions.remoteResource')
    .execute();
}

/** The latest disagreements, newest first. */
export async function disagreements(db: Db, account: number, limit: number) {
  return db
    .selectFrom('shadow_decisions')
    .leftJoin('resources', 'resources.id', 'shadow_decisions.resource')
    .leftJoin('members', 'members.id', 'shadow_decisions.member')
    .select([
      ...qualified('shadow_decisions', [
        'source',
        'remoteLog',
        'at',
        'remoteResource',
        'remoteMember',
        'resource',
        'member',
      ]),
      'resources.name as resourceName',
      'members.firstName as firstName',
      'members.lastName as lastName',
      ...qualified('shadow_decisions', ['theirs', 'theirReason', 'ours', 'ourReason', 'ourMessage']),
    ])
    .where('shadow_decisions.account', '=', account)
    .where('shadow_decisions.agrees', '=', 0)
    .orderBy('shadow_decisions.at', 'desc')
    .orderBy('shadow_decisions.remoteLog', 'desc')
    .limit(limit)
    .execute();
}

/** The database's first account (the one a moved-in space has). */
export async function firstAccount(db: Db): Promise<number | undefined> {
  return (await db.selectFrom('accounts').select('id').orderBy('id').limit(1).executeTakeFirst())?.id;
}

export const shadowReceivers = (db: Db, account: number) =>
  db.selectFrom('shadow_receivers').selectAll().where('account', '=', account).orderBy('id').execute();

export const shadowReceiver = (db: Db, id: number) => firstWhere(db, 'shadow_receivers', { id });

export const shadowReceiverOf = (db: Db, account: number, source: string) =>
  firstWhere(db, 'shadow_receivers', { account, source });

export const insertShadowReceiver = (db: Db, row: Insertable<ShadowReceiversTable>) =>
  insertReturning(db, 'shadow_receivers', row);

export const updateShadowReceiver = (
  db: Db,
  id: number,
  values: Partial<Pick<ShadowReceiversTable, 'secretHash' | 'rotatedAt' | 'lastEventAt' | 'updatedBy'>>,
) =>
  db
    .updateTable('shadow_receivers')
    .set(values)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

export async function deleteShadowReceiver(db: Db, account: number, id: number): Promise<boolean> {
  return (await deleteWhere(db, 'shadow_receivers', { account, id })) > 0;
}
