import type { AccessChange, AccessSimulationResult } from '@makerspace/shared';
import { useState } from 'preact/hooks';
import { ApiError, call } from '../api';
import { t, tOr } from '../i18n/i18n';
import { wall } from './zoned';

/** The request a form is about to make, as the simulation takes it. */
export interface ProposedChange {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
}

/** Asks the hub who would gain or lose access by the change (nothing is changed). */
export const simulateChange = (change: ProposedChange) =>
  call<AccessSimulationResult>('POST', '/access-simulations', change);

/**
 * "Mondays", "Mondays and Sundays", "Mondays, Tuesdays and Sundays": the local days the stretches
 * touch; null when they touch every day of the week.
 */
function daysOf(stretches: { from: string; until: string }[], zone: string): string | null {
  const days = new Set<number>();
  for (const s of stretches) {
    // The stretch's first and last minute, and each hour between: enough to name its days.
    for (let t = Date.parse(s.from); t < Date.parse(s.until); t += 3_600_000)
      days.add(wall(new Date(t), zone).dayOfWeek);
  }
  if (days.size === 7) return null;
  const names = [...days]
    .sort()
    .map((d) => t(`admin.access_preview.onDay.${d}` as 'admin.access_preview.onDay.1'));
  return names.length <= 1
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')}${t('admin.access_preview.and')}${names.at(-1)}`;
}

/** One sentence per resource and direction: "12 members lose Laser on Sundays". */
export function summaryLines(result: AccessSimulationResult): string[] {
  const lines: { count: number; text: string }[] = [];
  const byResource = new Map<string, AccessChange[]>();
  for (const c of result.changes)
    byResource.set(c.resourceName, [...(byResource.get(c.resourceName) ?? []), c]);
  for (const [resource, changes] of byResource) {
    for (const way of ['loses', 'gains'] as const) {
      const these = changes.filter((c) => c[way].length > 0);
      if (these.length === 0) continue;
      const days = daysOf(
        these.flatMap((c) => c[way]),
        result.timeZone,
      );
      const when =
        days === null
          ? t('admin.access_preview.everyDay')
          : days
            ? t('admin.access_preview.onDays', { days })
            : '';
      const text =
        these.length === 1
          ? t(`admin.access_preview.${way}One`, { name: these[0].memberName, resource, when })
          : t(`admin.access_preview.${way}Many`, { n: these.length, resource, when });
      lines.push({ count: these.length, text });
    }
  }
  return lines.sort((a, b) => b.count - a.count).map((l) => l.text);
}

function stretchText(s: { from: string; until: string }, zone: string): string {
  const a = wall(s.from, zone);
  const b = wall(s.until, zone);
  const day = (w: typeof a) =>
    `${t(`admin.access_preview.dayShort.${w.dayOfWeek}` as 'admin.access_preview.dayShort.1')} ${w.date.slice(5)}`;
  return a.date === b.date || (b.time === '00:00' && Date.parse(s.until) - Date.parse(s.from) <= 86_400_000)
    ? `${day(a)} ${a.time}–${b.time === '00:00' ? '24:00' : b.time}`
    : `${day(a)} ${a.time} – ${day(b)} ${b.time}`;
}

/** What the preview shows: the change's effect, or that it could not be worked out. */
type Shown = { result: AccessSimulationResult } | { notice: string };

/**
 * Before a form saves a change to who may use what, the console shows its effect for the next
 * week ("12 members lose the laser on Sundays", the list one click away) and saves only when the
 * admin says so. A change that alters nobody's access saves at once.
 */
export function useAccessPreview() {
  const [shown, setShown] = useState<(Shown & { save: () => void; label: string }) | null>(null);

  /**
   * True when the form must wait: the preview is shown and its button (`label`, "Save anyway"
   * by default) goes ahead.
   */
  async function holds(
    change: ProposedChange,
    save: () => void,
    label = t('admin.access_preview.saveAnyway'),
  ): Promise<boolean> {
    try {
      const result = await simulateChange(change);
      if (result.changes.length === 0) return false;
      setShown({ result, save, label });
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.data?.tooLarge) {
        setShown({ notice: `${err.message}`, save, label });
        return true;
      }
      // A change the hub would refuse: the save itself says why.
      return false;
    }
  }

  const panel = shown ? (
    <div role="alert" class="warning access-preview" aria-label={t('admin.access_preview.who')}>
      {'result' in shown ? (
        <>
          <p>
            {shown.label === t('admin.access_preview.saveAnyway')
              ? t('admin.access_preview.beforeSave')
              : t('admin.access_preview.beforeDelete')}
          </p>
          <ul>
            {summaryLines(shown.result).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <details>
            <summary>{t('admin.access_preview.showChanges', { count: shown.result.changes.length })}</summary>
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">{t('admin.access_preview.member')}</th>
                  <th scope="col">{t('admin.access_preview.resource')}</th>
                  <th scope="col">{t('admin.access_preview.loses')}</th>
                  <th scope="col">{t('admin.access_preview.gains')}</th>
                  <th scope="col">{t('admin.access_preview.why')}</th>
                </tr>
              </thead>
              <tbody>
                {shown.result.changes.map((c) => (
                  <tr key={`${c.member}:${c.resource}`}>
                    <td data-label={t('admin.access_preview.member')}>{c.memberName}</td>
                    <td data-label={t('admin.access_preview.resource')}>{c.resourceName}</td>
                    <td data-label={t('admin.access_preview.loses')}>
                      {c.loses.map((s) => stretchText(s, shown.result.timeZone)).join(', ')}
                    </td>
                    <td data-label={t('admin.access_preview.gains')}>
                      {c.gains.map((s) => stretchText(s, shown.result.timeZone)).join(', ')}
                    </td>
                    <td data-label={t('admin.access_preview.why')} title={c.message}>
                      {tOr(`log.reason.${c.reason}`, c.message)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p class="muted">{t('admin.access_preview.timesIn', { zone: shown.result.timeZone })}</p>
          </details>
        </>
      ) : (
        <p>{t('admin.access_preview.notShown', { notice: shown.notice })}</p>
      )}
      <div class="actions">
        <button
          type="button"
          class="primary"
          onClick={() => {
            const { save } = shown;
            setShown(null);
            save();
          }}
        >
          {shown.label}
        </button>
        <button type="button" class="secondary" onClick={() => setShown(null)}>
          {t('admin.access_preview.keepEditing')}
        </button>
      </div>
    </div>
  ) : null;

  return { holds, panel, waiting: shown !== null };
}
