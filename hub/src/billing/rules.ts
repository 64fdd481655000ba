import type { PermissionTime } from '@makerspace/shared';
import type { AccessRule, RuleRequest } from '../access/policy.js';
import { once, ruleOrder, zoneOf } from '../access/policy.js';
import { parseJson } from '../db/crud.js';
import { clockSeconds, type LocalTime, localTime } from './local-time.js';
import { parseMoney } from '../kernel/money.js';
import type { PackagePermissionRow } from './packages.js';
import { type CoveringPermission, coveringPermissionsQuery } from './packages.repository.js';
import { memberBalance } from './balance.js';

const DAY = 86_400;

/**
 * Does the permission's time table allow this local moment, and for how long (seconds, null =
 * no limit from the time table)? 'openingHours' leaves the time to the opening-hours rule.
 * Windows that touch (Mon 18:00-24:00 and Tue 00:00-06:00) count as one.
 */
export function timeWindow(
  permission: Pick<PackagePermissionRow, 'timeType' | 'times'>,
  local: LocalTime,
): { allowed: boolean; secondsLeft: number | null } {
  if (permission.timeType !== 'custom') return { allowed: true, secondsLeft: null };
  const times = windowsOf(permission.times);
  let day = local.dayOfWeek;
  let t = local.secondOfDay;
  let left = 0;
  for (let step = 0; step < 7 * 48; step++) {
    let end = -1;
    for (const w of times) {
      if (w.dayOfWeek !== day) continue;
      if (w.from <= t && t < w.until && w.until > end) end = w.until;
    }
    if (end < 0) break;
    left += end - t;
    if (left >= 7 * DAY) return { allowed: true, secondsLeft: null };
    t = end;
    if (t >= DAY) {
      t = 0;
      day = (day % 7) + 1;
    }
  }
  return left > 0 ? { allowed: true, secondsLeft: left } : { allowed: false, secondsLeft: null };
}

/** A time table's windows in seconds of the day, by its stored text (the same few on every decision). */
const windows = new Map<string | null, { dayOfWeek: number; from: number; until: number }[]>();

function windowsOf(stored: string | null): { dayOfWeek: number; from: number; until: number }[] {
  let parsed = windows.get(stored);
  if (!parsed) {
    parsed = (parseJson<PermissionTime[]>(stored) ?? []).map((w) => ({
      dayOfWeek: w.dayOfWeek,
      from: clockSeconds(w.fromTime),
      until: clockSeconds(w.untilTime),
    }));
    if (windows.size >= 1000) windows.clear();
    windows.set(stored, parsed);
  }
  return parsed;
}

async function localNow(request: RuleRequest): Promise<LocalTime> {
  return localTime(request.at, await zoneOf(request));
}

/** The member's covering permissions at the request's local time (null without a member). */
async function permissionsNow(request: RuleRequest) {
  if (!request.member) return null;
  const local = await localNow(request);
  return { local, permissions: await requestPermissions(request, request.member.id, local.date) };
}

/** coveringPermissions for the policy: on the fast reads, once per request. */
function requestPermissions(
  request: RuleRequest,
  member: number,
  date: string,
): Promise<CoveringPermission[]> {
  return once(request, `permissions:${member}:${date}`, () => {
    const query = coveringPermissionsQuery(member, request.resource, date);
    return request.reads.rows<CoveringPermission>(query.text, query.params);
  });
}

/** Package rules of DESIGN 5 (noPackage, timeTable, prepaidBalance); admins and owners pass them. */
export function packageRules(): AccessRule[] {
  return [
    {
      name: 'package',
      order: ruleOrder.package,
      adminsPass: true,
      async check(request) {
        const now = await permissionsNow(request);
        return now && now.permissions.length === 0 ? { deny: 'noPackage' } : undefined;
      },
    },
    {
      name: 'timeTable',
      order: ruleOrder.timeTable,
      adminsPass: true,
      async check(request) {
        const now = await permissionsNow(request);
        if (!now || now.permissions.length === 0) return undefined;
        let best: number | null | undefined;
        for (const p of now.permissions) {
          const w = timeWindow(p, now.local);
          if (!w.allowed) continue;
          if (w.secondsLeft === null) return undefined;
          if (best === undefined || (best !== null && w.secondsLeft > best)) best = w.secondsLeft;
        }
        return best === undefined ? { deny: 'timeTable' } : { maxDuration: best };
      },
    },
    {
      name: 'prepaidBalance',
      order: ruleOrder.prepaidBalance,
      adminsPass: true,
      async check({ db, member }) {
        if (member?.requireUpfrontPayment !== 1) return undefined;
        const minimum = parseMoney(member.upfrontMinimumBalance ?? '0');
        const balance = await memberBalance(db, member.id);
        return balance < minimum ? { deny: 'prepaidBalance' } : undefined;
      },
    },
  ];
}
