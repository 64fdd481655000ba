import { type Db, firstWhere, qualified } from '../db/crud.js';
import { type FastReads, isPostgres } from '../db/fast-reads.js';
import type { Caller } from '../kernel/caller.js';
import { isAdmin } from '../kernel/caller.js';

/* The `resources` table: reads and the writes that are not a collection's plain rows. */

/** Resources the caller sees: admins every one of their account, members the visible ones. */
export function visibleResources(db: Db, caller: Caller) {
  let query = db.selectFrom('resources');
  if (!caller.superuser) query = query.where('resources.account', '=', caller.accountId);
  if (!isAdmin(caller)) query = query.where('resources.visibleForMembers', '=', 1);
  return query;
}

/** A resource by id; with a caller, only one of the caller's account (superusers: any). */
export function resourceRow(db: Db, id: number, caller?: Caller) {
  let query = db.selectFrom('resources').selectAll().where('id', '=', id);
  if (caller && !caller.superuser) query = query.where('account', '=', caller.accountId);
  return query.executeTakeFirst();
}

/** A resource by id, its row locked until the transaction ends (PostgreSQL; SQLite writes one at a time). */
export function resourceRowForUpdate(db: Db, id: number) {
  let query = db.selectFrom('resources').selectAll().where('id', '=', id);
  if (isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A resource's id and account. */
export function resourceAccount(db: Db, id: number) {
  return firstWhere(db, 'resources', { id }, ['id', 'account']);
}

/** A resource's id and control type (door or machine). */
export function resourceControl(db: Db, id: number) {
  return firstWhere(db, 'resources', { id }, ['id', 'controlType']);
}

/** Each resource's last use: its newest allowed log, with how it stopped. */
export function lastUseRows(db: Db, resourceIds: number[]) {
  return db
    .selectFrom('resources')
    .innerJoin('resource_logs', 'resource_logs.id', 'resources.lastUsedLog')
    .select([
      'resources.id as resource',
      'resource_logs.createdAt as at',
      ...qualified('resource_logs', ['id', 'member', 'stopType']),
    ])
    .where('resources.id', 'in', resourceIds)
    .execute();
}

/**
 * A space (id and account) a new resource may go into: one of the caller's account (superusers:
 * any). The `spaces` table is the spaces area's; this read is the resources area's own use.
 */
export function spaceForResource(db: Db, caller: Caller, spaceId: number) {
  return db
    .selectFrom('spaces')
    .select(['id', 'account'])
    .where('id', '=', spaceId)
    .$if(!caller.superuser, (q) => q.where('account', '=', caller.accountId))
    .executeTakeFirst();
}

/** Every space's time zone, and whether its account has a bridge (whose config may need a new date). */
export async function spaceZones(db: Db) {
  const rows = await db
    .selectFrom('spaces')
    .select((eb) => [
      'id',
      'account',
      'timezone',
      eb
        .exists(
          eb
            .selectFrom('bridges')
            .select('bridges.resource')
            .whereRef('bridges.account', '=', 'spaces.account'),
        )
        .as('bridged'),
    ])
    .execute();
  return rows.map((r) => ({ ...r, bridged: Boolean(r.bridged) }));
}

/** A replaced switch-on code (printed stickers with it then say "out of date", not "wrong code"). */
export async function retireCode(db: Db, resource: number, codeHash: string, at: string): Promise<void> {
  await db.insertInto('retired_switch_on_codes').values({ resource, codeHash, retiredAt: at }).execute();
}

/** A resource type's id and name (a fast read: the access check's). */
export function resourceTypeName(reads: FastReads, id: number) {
  return reads.first<{ id: number; name: string }>(
    'select "id", "name" from "resource_types" where "id" = ?',
    [id],
  );
}
