import type { MembersReport } from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import { frameAnswer, periodOfDate, type ReportFrame } from './report-periods.js';
import type { Caller } from '../kernel/caller.js';
import { membershipRows } from '../identity/membership.repository.js';

/**
 * Active, new and ended members, by their packages: a member is active on the days one of their
 * packages covers, new in the period their first package starts, and ended in the period their
 * last package ends when no package of theirs is open-ended or runs on beyond it.
 */
export async function membersReport(db: Db, caller: Caller, frame: ReportFrame): Promise<MembersReport> {
  const n = frame.periods.length;
  const spans = new Map<number, { from: string; until: string | null }[]>();
  for (const row of await membershipRows(db, caller.accountId)) {
    const list = spans.get(row.member) ?? [];
    list.push({ from: row.fromDate, until: row.untilDate });
    spans.set(row.member, list);
  }
  const active = Array(n).fill(0);
  const started = Array(n).fill(0);
  const ended = Array(n).fill(0);
  const totals = { active: 0, new: 0, ended: 0 };
  for (const list of spans.values()) {
    let activeAnywhere = false;
    for (const [i, period] of frame.periods.entries()) {
      if (list.some((s) => s.from <= period.until && (s.until === null || s.until >= period.from))) {
        active[i] += 1;
        activeAnywhere = true;
      }
    }
    if (activeAnywhere) totals.active += 1;
    const first = list.reduce((a, s) => (s.from < a ? s.from : a), list[0].from);
    const startedIn = periodOfDate(frame, first);
    if (startedIn >= 0) {
      started[startedIn] += 1;
      totals.new += 1;
    }
    if (list.every((s) => s.until !== null)) {
      const last = list.reduce((a, s) => (s.until! > a ? s.until! : a), list[0].until!);
      const endedIn = periodOfDate(frame, last);
      if (endedIn >= 0) {
        ended[endedIn] += 1;
        totals.ended += 1;
      }
    }
  }
  return { ...frameAnswer(frame), active, new: started, ended, totals };
}
