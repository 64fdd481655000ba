import type { FastReads } from '../db/fast-reads.js';

/** Wrong switch-on codes the member entered for the resource after `since` (a fast read). */
export async function wrongCodesSince(
  reads: FastReads,
  resourceId: number,
  memberId: number,
  since: string,
): Promise<number> {
  const row = await reads.first<{ n: number | string }>(
    'select count(*) as "n" from "access_attempts" where "resource" = ? and "member" = ? and "kind" = \'wrongCode\' and "at" > ?',
    [resourceId, memberId, since],
  );
  return Number(row?.n ?? 0);
}

/** The space's IANA time zone, null or undefined when unset or unknown (the spaces area's table). */
export async function spaceZone(reads: FastReads, spaceId: number): Promise<string | null | undefined> {
  const row = await reads.first<{ timezone: string | null }>(
    'select "timezone" from "spaces" where "id" = ?',
    [spaceId],
  );
  return row?.timezone;
}
