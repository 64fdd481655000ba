import type { HubContext } from '../context.js';
import { updateRow } from '../db/collection-rows.js';
import type { Db } from '../db/crud.js';
import type { Caller } from '../kernel/caller.js';
import { resourceUpdated } from './resource-changes.js';
import type { ResourceRow } from './resources.js';
import { resourceRowForUpdate } from './resources.repository.js';

/*
 * Locking a resource for a problem report (docs/DECISIONS.md, "Problem reports"): the same
 * write as an admin's PUT /resources/{id} with `state: locked` and a `lockReason`, so the same
 * things follow (a resourceDisabled or resourceEnabled log, resource_updated, the bridge's new
 * config). Each runs in the caller's transaction; the caller publishes the bridge's config after
 * the commit (`ctx.bridges.publishConfig`) when one answers true.
 */

/** What a lock change writes beside the resource row: the log's words and the report's id. */
export interface LockNote {
  notes: string;
  metadata: Record<string, unknown>;
}

async function changeLock(
  trx: Db,
  ctx: HubContext,
  caller: Caller,
  before: ResourceRow,
  columns: { state: 'active' | 'locked'; lockReason: string | null },
  note: LockNote | null,
): Promise<void> {
  await updateRow(trx, 'resources', before.id, before.lockVersion, columns, {
    at: ctx.clock.now().toISOString(),
    by: caller.memberId || null,
  });
  const after = await resourceRowForUpdate(trx, before.id);
  if (!after) throw new Error(`resource ${before.id} vanished in its own transaction`);
  await resourceUpdated(trx, ctx, caller, before, after, note);
}

/**
 * Holds the resource's row until the transaction ends (PostgreSQL), so that what the caller reads
 * next about it (its open reports) cannot change before its lock changes.
 */
export async function holdResource(trx: Db, resourceId: number): Promise<void> {
  await resourceRowForUpdate(trx, resourceId);
}

/**
 * Locks an active resource with this reason and writes its resourceDisabled log with `note`.
 * Answers false (and changes nothing) when the resource is locked already.
 */
export async function lockResourceFor(
  trx: Db,
  ctx: HubContext,
  caller: Caller,
  resourceId: number,
  lockReason: string,
  note: LockNote,
): Promise<boolean> {
  const before = await resourceRowForUpdate(trx, resourceId);
  if (!before || before.state === 'locked') return false;
  await changeLock(trx, ctx, caller, before, { state: 'locked', lockReason }, note);
  return true;
}

/**
 * The resource's lock, if it is still the one with `lockReason` (nobody unlocked it or changed
 * its reason meanwhile): then `next` is either another reason it stays locked for (no log), or
 * null to unlock it with a resourceEnabled log saying `note`. Answers whether it changed.
 */
export async function passOnLock(
  trx: Db,
  ctx: HubContext,
  caller: Caller,
  resourceId: number,
  lockReason: string,
  next: string | null,
  note: LockNote,
): Promise<'unlocked' | 'passedOn' | 'notOurs'> {
  const before = await resourceRowForUpdate(trx, resourceId);
  if (before?.state !== 'locked' || before.lockReason !== lockReason) return 'notOurs';
  if (next !== null) {
    await changeLock(trx, ctx, caller, before, { state: 'locked', lockReason: next }, null);
    return 'passedOn';
  }
  await changeLock(trx, ctx, caller, before, { state: 'active', lockReason: null }, note);
  return 'unlocked';
}
