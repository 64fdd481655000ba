import type { Db } from '../db/crud.js';
import { findMember } from '../identity/members.js';
import type { Caller } from '../kernel/caller.js';
import { findResource, findResourceInAccount } from '../resources/resources.js';

/**
 * The handlers of routes on the record their path names (`/members/:memberId/...`,
 * `/resources/:resourceId/...`): each gets that record as `find` reads it for the caller (404 for
 * one they may not see) before the request and the caller.
 */
function onPathRecord<Key extends string, Row>(
  key: Key,
  find: (db: Db, caller: Caller, id: number) => Promise<Row>,
) {
  return <Request extends { params: Record<Key, number> }, Answer>(
    db: Db,
    handler: (row: Row, request: Request, caller: Caller) => Answer | Promise<Answer>,
  ): ((request: Request, caller: Caller) => Promise<Answer>) =>
    async (request, caller) =>
      handler(await find(db, caller, request.params[key]), request, caller);
}

/** A route on the member its path names, as the caller sees them. */
export const onMember = onPathRecord('memberId', findMember);

/** A route on the resource its path names, as the caller sees it. */
export const onResource = onPathRecord('resourceId', findResource);

/**
 * A route on the resource its path names, in the caller's account whatever its visibility
 * (switch-on: the code proves presence; the admins' work on its door or bridge).
 */
export const onResourceInAccount = onPathRecord('resourceId', findResourceInAccount);
