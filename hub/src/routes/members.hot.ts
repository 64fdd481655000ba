import { notFound } from '../errors.js';
import { recordsJson } from '../http/caches.js';
import type { HubServices } from '../http/services.js';
import type { Caller } from '../kernel/caller.js';
import { isAdmin } from '../kernel/caller.js';
import {
  countFilteredMembers,
  countVisibleMembers,
  filteredMemberKeys,
  keptMemberVersion,
  memberRow,
  membersByIds,
  memberVersion,
  notKept,
  visibleMemberKeys,
} from '../identity/member-reads.repository.js';
import {
  canSeeMember,
  filtersMembers,
  type MemberListQuery,
  type MemberRow,
  memberRecord,
} from '../identity/members.js';

/**
 * Hot paths of the members collection (benchmarked): lists read ids and versions only and take
 * record texts from the record cache (keyed by lockVersion, so never stale); totals come from
 * the count cache. Lists with embeds take the machinery's general path.
 */

const toJson = (row: MemberRow) => JSON.stringify(memberRecord(row));

type ListQuery = MemberListQuery & { limit: number; offset: number; embed?: string[] };

export async function hotMemberList(ctx: HubServices, caller: Caller, query: ListQuery) {
  const { limit, offset, embed, orderBy = 'id', order = 'asc', ...filters } = query;
  if (embed && embed.length > 0) return undefined;
  const scope = [caller.superuser ? '*' : caller.accountId, isAdmin(caller) ? '' : caller.memberId];
  const countKey = JSON.stringify([scope, filters]);
  const fetch = (ids: number[]) => membersByIds(ctx.db, ids);
  // Hottest shape (the whole list by id): plain SQL on the fast reads.
  const whole = orderBy === 'id' && !filtersMembers(filters);
  const total = await ctx.caches.counts.count('members', countKey, () =>
    whole ? countVisibleMembers(ctx.storage.reads, caller) : countFilteredMembers(ctx.db, caller, filters),
  );
  const keys = whole
    ? await visibleMemberKeys(ctx.storage.reads, caller, { limit, offset, order })
    : await filteredMemberKeys(ctx.db, caller, { ...filters, orderBy, order, limit, offset });
  const json = await recordsJson(ctx.caches.records, 'members', keys, fetch, toJson);
  return { total, json, count: keys.length };
}

/**
 * The record text at once when nothing was committed since its version was read and the text is
 * in the cache (the usual case of a read-mostly hub: no query, no promise turn); otherwise
 * readMember's answer.
 */
export function hotMember(ctx: HubServices, caller: Caller, id: number): string | Promise<string> {
  const kept = keptMemberVersion(ctx.storage.reads, id);
  if (kept === notKept) return readMember(ctx, caller, id);
  return cachedText(ctx, caller, id, kept) ?? readMember(ctx, caller, id);
}

/**
 * A prepared read of the id, account and version; the record text comes from the cache, so the
 * whole row is read only when the text is not there.
 */
async function readMember(ctx: HubServices, caller: Caller, id: number): Promise<string> {
  const cached = cachedText(ctx, caller, id, await memberVersion(ctx.storage.reads, id));
  if (cached !== undefined) return cached;
  const row = await memberRow(ctx.storage.reads, id);
  if (!row) throw notFound('Member'); // deleted between the two reads
  const json = toJson(row);
  ctx.caches.records.set('members', row.id, row.lockVersion, json);
  return json;
}

/** The cached text of the member's version: 404 when there is none or the caller may not see it. */
function cachedText(
  ctx: HubServices,
  caller: Caller,
  id: number,
  key: { account: number; lockVersion: number; id: number } | undefined,
): string | undefined {
  if (!key || !canSeeMember(caller, key)) throw notFound('Member');
  return ctx.caches.records.get('members', id, key.lockVersion);
}
