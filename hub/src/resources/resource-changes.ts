import type { HubContext } from '../context.js';
import type { Db } from '../db/crud.js';
import type { Caller } from '../kernel/caller.js';
import { bridgeRecord, emitBridge, findBridge } from './bridges.js';
import { retiredCodeHash } from './codes.js';
import { insertLog } from './resource-logs.js';
import {
  emitResource,
  insertResource,
  lastUsedOf,
  type ResourceRow,
  resourceColumns,
  resourceRecord,
} from './resources.js';
import { bridgesOf, bumpConfigVersion } from './bridges.repository.js';
import { retireCode } from './resources.repository.js';

/*
 * What a write of a resource does beside its row (the resources collection, routes/resources.routes.ts):
 * its events, its retired switch-on codes, the logs of locking and unlocking, and its bridge's config.
 */

/** Resource records a page at a time: their last use, and with `embed=bridge` their bridge. */
export async function resourceRecords(
  ctx: HubContext,
  rows: ResourceRow[],
  caller: Caller,
  embed: readonly string[],
) {
  const ids = rows.map((r) => r.id);
  const lastUsed = await lastUsedOf(ctx.db, ids);
  const bridges = embed.includes('bridge')
    ? new Map((ids.length ? await bridgesOf(ctx.db, ids) : []).map((b) => [b.resource, bridgeRecord(b)]))
    : null;
  return rows.map((row) => ({
    ...resourceRecord(row, ctx, caller),
    lastUsed: lastUsed.get(row.id) ?? null,
    ...(bridges ? { _embedded: { bridge: bridges.get(row.id) ?? null } } : {}),
  }));
}

/** Creates a resource in the caller's transaction, with resource_created. */
export async function createResource(
  trx: Db,
  ctx: HubContext,
  caller: Caller,
  input: Record<string, unknown>,
  at: string,
) {
  const created = await insertResource({ ...ctx, db: trx }, caller, input, at);
  await emitResource(trx, 'resource_created', created);
  return created;
}

/** The columns a resource update writes (space, type and code checked; read in the write's transaction). */
export function resourceChanges(trx: Db, ctx: HubContext, row: ResourceRow, body: Record<string, unknown>) {
  const { lockVersion: _, ...fields } = body;
  return resourceColumns({ ...ctx, db: trx }, row.account, fields, row.codeMode);
}

/**
 * After a resource update, in its transaction: a replaced switch-on code is retired (printed
 * stickers with it then say "out of date" rather than "wrong code"); locking or unlocking writes
 * a resourceDisabled or resourceEnabled log (member: who did it); resource_updated goes out; the
 * bridge's config version goes up (published after the commit, `configChanged`).
 */
export async function resourceUpdated(
  trx: Db,
  ctx: HubContext,
  caller: Caller,
  before: ResourceRow,
  after: ResourceRow,
  /** What the lock or unlock log says beside who did it (a problem report names itself). */
  logNote: { notes: string; metadata: Record<string, unknown> } | null = null,
) {
  const at = after.updatedAt;
  if (after.switchOnCodeEncrypted !== before.switchOnCodeEncrypted) {
    const old = ctx.tokens.open(before.switchOnCodeEncrypted);
    await retireCode(trx, before.id, retiredCodeHash(old), at);
  }
  if (after.state !== before.state) {
    await insertLog(
      trx,
      {
        account: after.account,
        resource: after.id,
        type: after.state === 'locked' ? 'resourceDisabled' : 'resourceEnabled',
        member: caller.memberId,
        createdAt: at,
        stoppedAt: at,
        updatedAt: at,
        updatedBy: caller.memberId,
        ...logNote,
      },
      { resource: after },
    );
  }
  await emitResource(trx, 'resource_updated', after);
  await bumpConfigVersion(trx, after.id);
}

/** Before a resource is deleted: bridge_deleted for its bridge, then resource_deleted (the rows as they were). */
export async function resourceRemoved(trx: Db, row: ResourceRow) {
  const bridge = await findBridge(trx, row.id);
  if (bridge) await emitBridge(trx, 'bridge_deleted', bridge, row);
  await emitResource(trx, 'resource_deleted', row);
}
