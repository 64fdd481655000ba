import type { RevenueReport } from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import type { Caller } from '../kernel/caller.js';
import { resourceNames } from '../resources/usage.repository.js';
import { frameAnswer, pages, periodOfInstant, type ReportFrame } from './report-periods.js';
import { type Amount, formatMoney, parseMoney } from '../kernel/money.js';
import { revenueRows } from '../billing/revenue.repository.js';

interface Series {
  amounts: Amount[];
  total: Amount;
}

const emptySeries = (n: number): Series => ({ amounts: Array(n).fill(0n), total: 0n });
/** The series under a key, made on first use. */
function seriesOf<K>(map: Map<K, Series>, key: K, n: number): Series {
  let s = map.get(key);
  if (!s) {
    s = emptySeries(n);
    map.set(key, s);
  }
  return s;
}
const answer = (s: Series) => ({ amounts: s.amounts.map(formatMoney), total: formatMoney(s.total) });

/**
 * Revenue: the prices of the charges dated in each period, by the package and by the resource
 * they bill, summed exactly (billing/money.ts). A charge of neither (added by hand) counts as
 * other; every charge counts once in the total.
 */
export async function revenueReport(db: Db, caller: Caller, frame: ReportFrame): Promise<RevenueReport> {
  const n = frame.periods.length;
  const resources = await resourceNames(db, caller.accountId);
  const rows = pages(caller.accountId, frame, (page) => revenueRows(db, page));
  const packages = new Map<number, Series>();
  const packageNames = new Map<number, string>();
  const byResource = new Map<number, Series>();
  const other = emptySeries(n);
  let total = 0n;
  const add = (s: Series, at: number, amount: Amount) => {
    s.amounts[at] += amount;
    s.total += amount;
  };
  for await (const row of rows) {
    const at = periodOfInstant(frame, row.dateTime);
    if (at < 0) continue;
    const amount = parseMoney(row.price);
    total += amount;
    if (row.package !== null) {
      packageNames.set(row.package, row.packageName ?? '');
      add(seriesOf(packages, row.package, n), at, amount);
    }
    if (row.resource !== null) add(seriesOf(byResource, Number(row.resource), n), at, amount);
    if (row.package === null && row.resource === null) add(other, at, amount);
  }
  return {
    ...frameAnswer(frame),
    total: formatMoney(total),
    packages: [...packages]
      .map(([id, s]) => ({ package: id, name: packageNames.get(id) ?? '', ...answer(s) }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.package - b.package),
    resources: resources
      .filter((r) => byResource.has(r.id))
      .map((r) => ({ resource: r.id, name: r.name, ...answer(byResource.get(r.id)!) })),
    other: answer(other),
  };
}
