import type { DenyReason, RefusalsReport, UsageReport } from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import type { Caller } from '../kernel/caller.js';
import { frameAnswer, pages, periodOfInstant, type ReportFrame } from './report-periods.js';
import { refusalRows, resourceNames, sessionRows } from '../resources/usage.repository.js';

const hundredths = (seconds: number) => Math.round(seconds / 36) / 100;

/**
 * Use per resource: the sessions started in each period and their hours. A session counts in
 * the period it started in, with its whole length; one still running counts up to now. Every
 * resource of the account has a row, used or not, so a chart shows the idle ones too.
 */
export async function usageReport(
  db: Db,
  caller: Caller,
  frame: ReportFrame,
  now: Date,
): Promise<UsageReport> {
  const resources = await resourceNames(db, caller.accountId);
  const n = frame.periods.length;
  const figures = new Map(
    resources.map((r) => [r.id, { sessions: Array(n).fill(0), seconds: Array(n).fill(0) }]),
  );
  const rows = pages(caller.accountId, frame, (page) => sessionRows(db, page));
  for await (const row of rows) {
    const at = periodOfInstant(frame, row.createdAt);
    const f = figures.get(row.resource);
    if (at < 0 || !f) continue;
    const end = row.stoppedAt ? Date.parse(row.stoppedAt) : now.getTime();
    f.sessions[at] += 1;
    f.seconds[at] += Math.max(0, end - Date.parse(row.createdAt)) / 1000;
  }
  return {
    ...frameAnswer(frame),
    resources: resources.map((r) => {
      const f = figures.get(r.id)!;
      return {
        resource: r.id,
        name: r.name,
        sessions: f.sessions,
        hours: f.seconds.map(hundredths),
        totalSessions: f.sessions.reduce((a, b) => a + b, 0),
        totalHours: hundredths(f.seconds.reduce((a, b) => a + b, 0)),
      };
    }),
  };
}

/** Refusals by reason: the denied logs of each period, the most frequent reason first. */
export async function refusalsReport(db: Db, caller: Caller, frame: ReportFrame): Promise<RefusalsReport> {
  const rows = pages(caller.accountId, frame, (page) => refusalRows(db, page));
  const byReason = new Map<DenyReason | null, number[]>();
  let total = 0;
  for await (const row of rows) {
    const at = periodOfInstant(frame, row.createdAt);
    if (at < 0) continue;
    const reason = row.reason as DenyReason | null;
    let counts = byReason.get(reason);
    if (!counts) {
      counts = Array(frame.periods.length).fill(0);
      byReason.set(reason, counts);
    }
    counts[at] += 1;
    total += 1;
  }
  const reasons = [...byReason].map(([reason, counts]) => ({
    reason,
    counts,
    total: counts.reduce((a, b) => a + b, 0),
  }));
  reasons.sort((a, b) => b.total - a.total || String(a.reason).localeCompare(String(b.reason)));
  return { ...frameAnswer(frame), total, reasons };
}
