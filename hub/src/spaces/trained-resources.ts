import type { Db } from '../db/crud.js';
import { spaceTimeZone } from './spaces.repository.js';
import { trainedResourceIds } from './training.repository.js';
import { localDate } from '../kernel/zoned-time.js';

/**
 * The resources requiring training whose training the member has: a training of an active
 * course for the resource, valid on today's date in the member's space (the same rule the
 * access policy applies, spaces/access.rules.ts trainingOutcome).
 */
export async function trainedResources(
  db: Db,
  member: { id: number; account: number; space: number },
  at: Date,
): Promise<number[]> {
  const today = localDate(at, await spaceTimeZone(db, member.space));
  return trainedResourceIds(db, member, today);
}
