import type { AccessChange, AccessSimulationResult } from '@makerspace/shared';
import { useState } from 'preact/hooks';
import { ApiError, call } from '../api';
import { wall, weekdays } from './zoned';

/** The request a form is about to make, as the simulation takes it. */
export interface ProposedChange {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
}

/** Asks the hub who would gain or lose access by the change (nothing is changed). */
export const simulateChange = (change: ProposedChange) =>
  call<AccessSimulationResult>('POST', '/access-simulations', change);

/** "Monday", "Monday and Sunday", "Monday, Tuesday and Sunday": the local days the stretches touch. */
function daysOf(stretches: { from: string; until: string }[], zone: string): string {
  const days = new Set<number>();
  for (const s of stretches) {
    // The stretch's first and last minute, and each hour between: enough to name its days.
    for (let t = Date.parse(s.from); t < Date.parse(s.until); t += 3_600_000)
      days.add(wall(new Date(t), zone).dayOfWeek);
  }
  const names = [...days].sort().map((d) => `${weekdays[d - 1]}s`);
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
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
      const verb = way === 'loses' ? 'lose' : 'gain';
      const who =
        these.length === 1
          ? `${these[0].memberName} ${way === 'loses' ? 'loses' : 'gains'}`
          : `${these.length} members ${verb}`;
      const days = daysOf(
        these.flatMap((c) => c[way]),
        result.timeZone,
      );
      lines.push({ count: these.length, text: `${who} ${resource}${days ? ` on ${days}` : ''}` });
    }
  }
  return lines.sort((a, b) => b.count - a.count).map((l) => l.text);
}

function stretchText(s: { from: string; until: string }, zone: string): string {
  const a = wall(s.from, zone);
  const b = wall(s.until, zone);
  const day = (w: typeof a) => `${weekdays[w.dayOfWeek - 1].slice(0, 3)} ${w.date.slice(5)}`;
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
  async function holds(change: ProposedChange, save: () => void, label = 'Save anyway'): Promise<boolean> {
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
    <div role="alert" class="warning access-preview" aria-label="Who gains and loses access">
      {'result' in shown ? (
        <>
          <p>{shown.label === 'Save anyway' ? 'Before you save' : 'Before this goes'}, for the next week:</p>
          <ul>
            {summaryLines(shown.result).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <details>
            <summary>Show the {shown.result.changes.length} member and resource changes</summary>
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Loses</th>
                  <th scope="col">Gains</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {shown.result.changes.map((c) => (
                  <tr key={`${c.member}:${c.resource}`}>
                    <td>{c.memberName}</td>
                    <td>{c.resourceName}</td>
                    <td>{c.loses.map((s) => stretchText(s, shown.result.timeZone)).join(', ')}</td>
                    <td>{c.gains.map((s) => stretchText(s, shown.result.timeZone)).join(', ')}</td>
                    <td>{c.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p class="muted">Times in {shown.result.timeZone}.</p>
          </details>
        </>
      ) : (
        <p>The effect of this change could not be shown: {shown.notice}</p>
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
          Keep editing
        </button>
      </div>
    </div>
  ) : null;

  return { holds, panel, waiting: shown !== null };
}
