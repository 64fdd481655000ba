import type { KeyType, LiveLog } from '@makerspace/shared';
import type { FastReads } from '../db/fast-reads.js';

/** A log row with the member's name, as the admins' feed needs it. */
export interface LiveLogRow {
  id: number;
  account: number;
  resource: number;
  type: LiveLog['type'];
  reason: LiveLog['reason'];
  member: number | null;
  createdAt: string;
  stoppedAt: string | null;
  offline: number | boolean;
  metadata: string | null;
  firstName: string | null;
  lastName: string | null;
}

const SELECT = `select "l"."id", "l"."account", "l"."resource", "l"."type", "l"."reason", "l"."member",
  "l"."createdAt", "l"."stoppedAt", "l"."offline", "l"."metadata", "m"."firstName", "m"."lastName"
from "resource_logs" as "l" left join "members" as "m" on "m"."id" = "l"."member"`;

/** The newest log id (the feed starts after it). */
export async function newestLogId(reads: FastReads): Promise<number> {
  const row = await reads.first<{ id: number | null }>('select max("id") as "id" from "resource_logs"', []);
  return Number(row?.id ?? 0);
}

/** Logs written after `afterId`, oldest first (at most `limit`). */
export function logsAfter(reads: FastReads, afterId: number, limit: number): Promise<LiveLogRow[]> {
  return reads.rows<LiveLogRow>(`${SELECT} where "l"."id" > ? order by "l"."id" limit ?`, [afterId, limit]);
}

export function liveLog(row: LiveLogRow): LiveLog {
  let card: LiveLog['card'] = null;
  if (row.metadata) {
    try {
      const first = JSON.parse(row.metadata)?.keys?.[0];
      if (first?.type && first?.token) card = { type: first.type as KeyType, token: String(first.token) };
    } catch {
      // Metadata is free-form; a log without a readable card shows none.
    }
  }
  return {
    id: Number(row.id),
    resource: Number(row.resource),
    type: row.type,
    reason: row.reason,
    member:
      row.member === null
        ? null
        : { id: Number(row.member), firstName: row.firstName ?? '', lastName: row.lastName ?? '' },
    createdAt: row.createdAt,
    stoppedAt: row.stoppedAt,
    offline: Boolean(Number(row.offline)),
    card,
  };
}
