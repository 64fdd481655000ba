import type { KeyType, UnknownCard } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import { parseJson } from '../db/crud.js';
import type { Caller } from '../kernel/caller.js';
import { keysWithTokens } from '../keys/cards.repository.js';
import { unknownKeyLogs } from './resource-logs.repository.js';

/** How many refused taps are read at most: enough for weeks of a normal space. */
const SCAN_LIMIT = 2000;

/**
 * Cards refused as unknown (denied logs with reason unknownKey keep the card in metadata.keys),
 * one entry per card, newest first, without cards that belong to a member by now.
 */
export async function recentUnknownCards(
  ctx: HubContext,
  caller: Caller,
  query: { days: number; limit: number },
): Promise<UnknownCard[]> {
  const since = new Date(ctx.clock.now().getTime() - query.days * 86_400_000).toISOString();
  const rows = await unknownKeyLogs(ctx.db, caller.accountId, since, SCAN_LIMIT);
  const cards = new Map<string, UnknownCard>();
  for (const row of rows) {
    const card = parseJson<{ keys?: { type: KeyType; token: string }[] }>(row.metadata)?.keys?.[0];
    if (!card?.token) continue;
    const token = card.token.toUpperCase();
    const id = `${card.type}:${token}`;
    const seen = cards.get(id);
    if (seen) seen.taps++;
    else
      cards.set(id, { type: card.type, token, lastSeenAt: row.createdAt, resource: row.resource, taps: 1 });
  }
  if (cards.size === 0) return [];
  const owned = await keysWithTokens(
    ctx.db,
    caller.accountId,
    [...cards.values()].map((c) => c.token),
  );
  for (const key of owned) cards.delete(`${key.type}:${key.token.toUpperCase()}`);
  return [...cards.values()].slice(0, query.limit);
}
