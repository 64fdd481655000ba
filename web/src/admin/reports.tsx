import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import type { Chart, ChartSeries } from './chart';
import { type Cell, download, toCsv } from './csv';
import { reasonWords } from './feed';
import {
  type MembersReport,
  type RefusalsReport,
  type ReportInterval,
  type ReportPeriod,
  type ReportRange,
  type RevenueReport,
  reportsApi,
  type UsageReport,
} from './reports-api';
import './reports.css';
import { locale, t } from '../i18n/i18n';

interface Reports {
  usage: UsageReport;
  refusals: RefusalsReport;
  members: MembersReport;
  revenue: RevenueReport;
}

/** What one section shows: a chart, the totals as a table, the figures per period, a CSV. */
interface ReportView {
  id: string;
  title: string;
  /** What the chart's numbers are (its y axis). */
  unit: string;
  chart: ChartSeries[];
  /** Said instead of a chart when there is nothing to draw. */
  empty: string;
  totals: { head: string[]; rows: string[][] };
  /** The figures of each period as text: one column per name. */
  perPeriod: { head: string[]; cells: (period: number) => string[] };
  csv: { head: string[]; rows: Cell[][] };
}

const intervals: ReportInterval[] = ['day', 'week', 'month'];
/** "Day" (a choice, a column), "day" (in a sentence). */
const intervalName = (i: ReportInterval) => t(`admin.reports.interval.${i}`);
const intervalNoun = (i: ReportInterval) => t(`admin.reports.noun.${i}`);

/** "2 Nov", "Nov 2026": a period by its first day. */
function periodLabel(p: ReportPeriod, interval: ReportInterval): string {
  const day = new Date(`${p.from}T12:00:00Z`);
  return interval === 'month'
    ? day.toLocaleDateString(locale(), { timeZone: 'UTC', month: 'short', year: 'numeric' })
    : day.toLocaleDateString(locale(), { timeZone: 'UTC', day: 'numeric', month: 'short' });
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const hours = (h: number) =>
  t('admin.reports.hours', { hours: h.toLocaleString(locale(), { maximumFractionDigits: 2 }) });
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function usageView(r: UsageReport): ReportView {
  return {
    id: 'usage',
    title: t('admin.reports.usage.title'),
    unit: t('admin.reports.usage.unit'),
    chart: r.resources.map((x) => ({ name: x.name, values: x.hours })),
    empty: t('admin.reports.usage.empty'),
    totals: {
      head: [
        t('admin.reports.usage.resource'),
        t('admin.reports.usage.sessions'),
        t('admin.reports.usage.hours'),
      ],
      rows: [
        ...r.resources.map((x) => [x.name, String(x.totalSessions), hours(x.totalHours)]),
        [
          t('admin.reports.usage.all'),
          String(sum(r.resources.map((x) => x.totalSessions))),
          hours(Math.round(sum(r.resources.map((x) => x.totalHours)) * 100) / 100),
        ],
      ],
    },
    perPeriod: {
      head: r.resources.map((x) => x.name),
      cells: (i) => r.resources.map((x) => `${x.sessions[i]} / ${hours(x.hours[i])}`),
    },
    csv: {
      head: ['from', 'until', 'resource', 'resourceName', 'sessions', 'hours'],
      rows: r.periods.flatMap((p, i) =>
        r.resources.map((x) => [p.from, p.until, x.resource, x.name, x.sessions[i], x.hours[i]]),
      ),
    },
  };
}

function refusalsView(r: RefusalsReport): ReportView {
  const name = (reason: string | null) =>
    reason ? capital(reasonWords(reason)) : t('admin.reports.refusals.noReason');
  return {
    id: 'refusals',
    title: t('admin.reports.refusals.title'),
    unit: t('admin.reports.refusals.unit'),
    chart: r.reasons.map((x) => ({ name: name(x.reason), values: x.counts })),
    empty: t('admin.reports.refusals.empty'),
    totals: {
      head: [t('admin.reports.refusals.reason'), t('admin.reports.refusals.refusals')],
      rows: [
        ...r.reasons.map((x) => [name(x.reason), String(x.total)]),
        [t('admin.reports.refusals.all'), String(r.total)],
      ],
    },
    perPeriod: {
      head: r.reasons.map((x) => name(x.reason)),
      cells: (i) => r.reasons.map((x) => String(x.counts[i])),
    },
    csv: {
      head: ['from', 'until', 'reason', 'refusals'],
      rows: r.periods.flatMap((p, i) => r.reasons.map((x) => [p.from, p.until, x.reason ?? '', x.counts[i]])),
    },
  };
}

function membersView(r: MembersReport): ReportView {
  const series: ChartSeries[] = [
    { name: t('admin.reports.members.active'), values: r.active },
    { name: t('admin.reports.members.new'), values: r.new },
    { name: t('admin.reports.members.ended'), values: r.ended },
  ];
  return {
    id: 'members',
    title: t('admin.reports.members.title'),
    unit: t('admin.reports.members.unit'),
    chart: series,
    empty: '',
    totals: {
      head: [t('admin.reports.members.title'), t('admin.reports.members.inRange')],
      rows: [
        [t('admin.reports.members.activeLong'), String(r.totals.active)],
        [t('admin.reports.members.newLong'), String(r.totals.new)],
        [t('admin.reports.members.endedLong'), String(r.totals.ended)],
      ],
    },
    perPeriod: { head: series.map((s) => s.name), cells: (i) => series.map((s) => String(s.values[i])) },
    csv: {
      head: ['from', 'until', 'active', 'new', 'ended'],
      rows: r.periods.map((p, i) => [p.from, p.until, r.active[i], r.new[i], r.ended[i]]),
    },
  };
}

function revenueView(r: RevenueReport): ReportView {
  const lines = [
    ...r.packages.map((x) => ({
      kind: 'package',
      id: x.package,
      name: x.name,
      label: t('admin.reports.revenue.package', { name: x.name }),
      s: x,
    })),
    ...r.resources.map((x) => ({ kind: 'resource', id: x.resource, name: x.name, label: x.name, s: x })),
    ...(r.other.total === '0.00'
      ? []
      : [{ kind: 'other', id: null, name: '', label: t('admin.reports.revenue.other'), s: r.other }]),
  ];
  return {
    id: 'revenue',
    title: t('admin.reports.revenue.title'),
    unit: t('admin.reports.revenue.unit'),
    chart: lines.map((l) => ({ name: l.label, values: l.s.amounts.map(Number) })),
    empty: t('admin.reports.revenue.empty'),
    totals: {
      head: [t('admin.reports.revenue.billedFor'), t('admin.reports.revenue.revenue')],
      rows: [...lines.map((l) => [l.label, l.s.total]), [t('admin.reports.revenue.all'), r.total]],
    },
    perPeriod: { head: lines.map((l) => l.label), cells: (i) => lines.map((l) => l.s.amounts[i]) },
    csv: {
      head: ['from', 'until', 'kind', 'id', 'name', 'amount'],
      rows: r.periods.flatMap((p, i) =>
        lines.map((l) => [p.from, p.until, l.kind, l.id, l.name, { amount: l.s.amounts[i] }]),
      ),
    },
  };
}

const DAY_MS = 86_400_000;

/** What is wrong with a range, in words, before the hub is asked; '' when nothing. */
function rangeProblem(r: ReportRange): string {
  if (!r.from) return t('admin.reports.fromDay');
  if (!r.until) return t('admin.reports.untilDay');
  if (r.until < r.from) return t('admin.reports.untilBefore');
  const days = (Date.parse(r.until) - Date.parse(r.from)) / DAY_MS + 1;
  if (r.interval === 'day' && days > 400) return t('admin.reports.tooManyDays');
  return '';
}

/** The hub's "query.until: must not lie before query.from" as the fields are named here. */
const inWords = (message: string) =>
  message.replace(/query\.(\w+)/g, (_, field: string) => capital(field)).replace(/^Interval:/, 'Per:');

/**
 * Reports: use per resource, refusals by reason, members and revenue over a range of the
 * space's days (by default the last 30, as the hub counts them), each as a chart, as text and as
 * CSV. uPlot comes in its own chunk once the figures are here.
 */
export function ReportsPage() {
  const [range, setRange] = useState<ReportRange>({ from: '', until: '', interval: 'day' });
  /** What the fields show; it becomes the range once it makes sense. */
  const [draft, setDraft] = useState<ReportRange | null>(null);
  const [reports, setReports] = useState<Reports | null>(null);
  const [error, setError] = useState('');
  const [problem, setProblem] = useState('');
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    let gone = false;
    setLoading(true);
    Promise.all([
      reportsApi.usage(range),
      reportsApi.refusals(range),
      reportsApi.members(range),
      reportsApi.revenue(range),
    ])
      .then(([usage, refusals, members, revenue]) => {
        if (gone) return;
        setReports({ usage, refusals, members, revenue });
        setDraft((d) => d ?? { from: usage.from, until: usage.until, interval: usage.interval });
        setError('');
      })
      .catch((e) => !gone && setError(e instanceof ApiError ? inWords(e.message) : String(e)))
      .finally(() => !gone && setLoading(false));
    return () => {
      gone = true;
    };
  }, [range.from, range.until, range.interval]);

  const shown = reports?.usage;
  const fields = draft ?? range;
  const set = (change: Partial<ReportRange>) => {
    const next = { ...fields, ...change };
    setDraft(next);
    const why = rangeProblem(next);
    setProblem(why);
    if (!why) setRange(next);
  };
  const labels = shown ? shown.periods.map((p) => periodLabel(p, shown.interval)) : [];

  return (
    <main class="admin reports">
      <h1>{t('admin.reports.reports')}</h1>
      <section aria-labelledby="range-h" class="report-range">
        <h2 id="range-h">{t('admin.reports.range')}</h2>
        <div class="actions">
          <label class="filter">
            {t('admin.reports.from')}
            <input
              type="date"
              value={fields.from}
              onChange={(e) => set({ from: (e.target as HTMLInputElement).value })}
            />
          </label>
          <label class="filter">
            {t('admin.reports.until')}
            <input
              type="date"
              value={fields.until}
              onChange={(e) => set({ until: (e.target as HTMLInputElement).value })}
            />
          </label>
          <div class="filter">
            {/* A label of its own: wrapped around the select, the options' text would join its name. */}
            <label for="report-interval">{t('admin.reports.per')}</label>
            <select
              id="report-interval"
              value={fields.interval}
              onChange={(e) => set({ interval: (e.target as HTMLSelectElement).value as ReportInterval })}
            >
              {intervals.map((value) => (
                <option key={value} value={value}>
                  {intervalName(value)}
                </option>
              ))}
            </select>
          </div>
        </div>
        <p class="hint" aria-live="polite">
          {loading
            ? t('admin.reports.counting')
            : shown
              ? t('admin.reports.shown', {
                  from: shown.from,
                  until: shown.until,
                  per: intervalNoun(shown.interval),
                  zone: shown.timeZone,
                })
              : ''}
        </p>
        {(problem || error) && (
          <p role="alert" class="error">
            {problem || error}
          </p>
        )}
      </section>
      {reports && shown && (
        <>
          <ReportSection view={usageView(reports.usage)} labels={labels} report={shown} />
          <ReportSection view={refusalsView(reports.refusals)} labels={labels} report={shown} />
          <ReportSection view={membersView(reports.members)} labels={labels} report={shown} />
          <ReportSection view={revenueView(reports.revenue)} labels={labels} report={shown} />
        </>
      )}
    </main>
  );
}

function ReportSection({
  view,
  labels,
  report,
}: {
  view: ReportView;
  labels: string[];
  report: UsageReport;
}) {
  const headId = `report-${view.id}-h`;
  const per = intervalNoun(report.interval);
  const exportCsv = () =>
    download(`${view.id}-${report.from}_${report.until}.csv`, toCsv(view.csv.head, view.csv.rows));
  return (
    <section aria-labelledby={headId} class="report">
      <div class="section-head">
        <h2 id={headId}>{view.title}</h2>
        <button type="button" class="secondary" onClick={exportCsv}>
          {t('admin.reports.download', { what: view.title })}
        </button>
      </div>
      {view.chart.length === 0 ? (
        <p class="muted">{view.empty}</p>
      ) : (
        <ChartView
          labels={labels}
          series={view.chart}
          unit={view.unit}
          label={t('admin.reports.chartLabel', {
            what: view.title,
            unit: view.unit,
            per,
            from: report.from,
            until: report.until,
          })}
        />
      )}
      <FiguresTable
        caption={t('admin.reports.totalsCaption', { what: view.title })}
        head={view.totals.head}
        rows={view.totals.rows}
      />
      {view.perPeriod.head.length > 0 && (
        <details>
          <summary>{t('admin.reports.figuresPer', { per })}</summary>
          <FiguresTable
            caption={t('admin.reports.perCaption', { what: view.title, per })}
            head={[intervalName(report.interval), ...view.perPeriod.head]}
            rows={report.periods.map((p, i) => [
              p.from === p.until ? p.from : t('admin.reports.periodRange', { from: p.from, until: p.until }),
              ...view.perPeriod.cells(i),
            ])}
          />
        </details>
      )}
    </section>
  );
}

function FiguresTable({ caption, head, rows }: { caption: string; head: string[]; rows: string[][] }) {
  return (
    <table class="list figures" aria-label={caption}>
      <thead>
        <tr>
          {head.map((h, i) => (
            <th key={h} scope="col" class={i > 0 ? 'amount' : undefined}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, r) => (
          <tr key={`${r}-${row[0]}`}>
            {row.map((cell, i) => (
              <td key={head[i]} data-label={head[i]} class={i > 0 ? 'amount' : undefined}>
                {cell}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The chart, drawn once uPlot's chunk is here, at the section's width; redrawn as it changes. */
function ChartView({
  labels,
  series,
  unit,
  label,
}: {
  labels: string[];
  series: ChartSeries[];
  unit: string;
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let chart: Chart | null = null;
    let gone = false;
    const observer = new ResizeObserver(() => chart?.resize());
    import('./chart')
      .then(({ drawChart }) => {
        if (gone || !box.current) return;
        chart = drawChart(box.current, labels, series, unit);
        observer.observe(box.current);
      })
      .catch(() => setFailed(true));
    return () => {
      gone = true;
      observer.disconnect();
      chart?.destroy();
    };
  }, [labels.join(), JSON.stringify(series), unit]);
  return failed ? (
    <p class="muted">{t('admin.reports.theChartCouldNot')}</p>
  ) : (
    <div class="chart" role="img" aria-label={label} ref={box} />
  );
}
