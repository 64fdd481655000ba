import type { Db } from '../db/crud.js';
import { findMember, type MemberRow } from '../identity/members.js';
import type { Caller } from '../kernel/caller.js';

/**
 * The handler of a route on the member its path names (`/members/:memberId/...`): it gets that
 * member as the caller sees it (404 for one they may not see) before the request and the caller.
 */
export function onMember<Request extends { params: { memberId: number } }, Answer>(
  db: Db,
  handler: (member: MemberRow, request: Request, caller: Caller) => Answer | Promise<Answer>,
): (request: Request, caller: Caller) => Promise<Answer> {
  return async (request, caller) =>
    handler(await findMember(db, caller, request.params.memberId), request, caller);
}
