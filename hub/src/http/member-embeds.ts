import { isActiveOn, memberPackageRecord, packageRecord } from '../billing/packages.js';
import type { Db } from '../db/crud.js';
import { type MemberRow, memberRecord } from '../identity/members.js';
import { keysOfMembers } from '../keys/keys.repository.js';
import { memberKeyRecord } from '../keys/member-keys.js';
import { spaceTimezones } from '../spaces/spaces.repository.js';
import { memberTrainingRecord, trainingsOfMembers } from '../spaces/training.repository.js';
import { localDate } from '../kernel/zoned-time.js';
import { memberPackagesOfMembers, packagesByIds } from '../billing/packages.repository.js';

/**
 * What a member list or record may embed (`embed=`). The commercial interface also offers
 * `device`: accepted and left out (the hub keeps no devices), never a 400.
 */
export const memberEmbeds = [
  'memberPackages',
  'activePackages',
  'trainings',
  'key',
  'privileges',
  'device',
] as const;

const groupBy = <R extends { member: number }>(rows: R[]) => {
  const by = new Map<number, R[]>();
  for (const row of rows) by.set(row.member, [...(by.get(row.member) ?? []), row]);
  return by;
};

/** Member records of a page of rows with the embeds asked for, read once per page. */
export async function membersWithEmbeds(db: Db, rows: MemberRow[], embed: readonly string[], at: Date) {
  const records = rows.map(memberRecord);
  const wanted = embed.filter((e) => e !== 'device');
  if (wanted.length === 0 || rows.length === 0) return records;
  const ids = rows.map((r) => r.id);
  const has = (e: string) => wanted.includes(e);
  const packages =
    has('memberPackages') || has('activePackages')
      ? groupBy(await memberPackagesOfMembers(db, ids))
      : new Map();
  const trainings = has('trainings') ? groupBy(await trainingsOfMembers(db, ids)) : new Map();
  const keys = has('key') ? new Map((await keysOfMembers(db, ids)).map((k) => [k.member, k])) : new Map();
  // Fabman's embedding: the member's packages (all, or with `activePackages` only those whose
  // period includes today in the member's space) as `_embedded.memberPackages`, each with its
  // package under its own `_embedded.package`; door readers read `memberPackages[0]`.
  const todays = new Map<number, string>();
  const packageRecords = new Map<number, ReturnType<typeof packageRecord>>();
  const onlyActive = has('activePackages') && !has('memberPackages');
  if (packages.size > 0) {
    if (onlyActive) {
      const spaceIds = [...new Set(rows.map((r) => r.space))];
      for (const s of await spaceTimezones(db, spaceIds))
        todays.set(s.id, localDate(at, s.timezone ?? 'UTC'));
    }
    const packageIds = [...new Set([...packages.values()].flat().map((mp) => mp.package as number))];
    for (const p of await packagesByIds(db, packageIds)) packageRecords.set(p.id, packageRecord(p));
  }
  return rows.map((row, i) => {
    const embedded: Record<string, unknown> = {};
    if (has('memberPackages') || has('activePackages')) {
      const today = todays.get(row.space) ?? localDate(at, 'UTC');
      const held = (packages.get(row.id) ?? []) as Parameters<typeof memberPackageRecord>[0][];
      embedded.memberPackages = held
        .filter((mp) => !onlyActive || isActiveOn(mp, today))
        .map((mp) => ({
          ...memberPackageRecord(mp),
          _embedded: { package: packageRecords.get(mp.package) ?? null },
        }));
    }
    if (has('trainings')) embedded.trainings = (trainings.get(row.id) ?? []).map(memberTrainingRecord);
    if (has('key')) {
      const key = keys.get(row.id);
      embedded.key = key ? memberKeyRecord(key) : null;
    }
    if (has('privileges')) embedded.privileges = { privileges: row.privileges };
    return { ...records[i], _embedded: embedded };
  });
}
