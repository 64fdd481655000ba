import { useEffect, useState } from 'preact/hooks';
import { useAccessPreview } from './access-preview';
import type { ApiError } from '../api';
import { Field } from '../field';
import { OccupancyForm } from './occupancy-form';
import {
  type HolidayInput,
  type HolidayRecord,
  type OpeningHour,
  type SpaceRecord,
  spacesApi,
} from './spaces-api';
import './spaces.css';
import { dayLabel, localLabel, minutesOf, wall, weekdays as weekdayKeys } from './zoned';
import { rich, slot, t } from '../i18n/i18n';

/** The days of the week, Monday first, in the current language. */
const weekdays = () =>
  weekdayKeys.map((_, i) => t(`admin.spaces.weekday.${i + 1}` as 'admin.spaces.weekday.1'));

const errorText = (e: unknown) => (e as ApiError).message;

/** Spaces: the time zone, the weekly opening hours and the holidays of each space. */
export function SpacesPage() {
  const [spaces, setSpaces] = useState<SpaceRecord[] | null>(null);
  const [spaceId, setSpaceId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    spacesApi
      .spaces()
      .then((list) => {
        setSpaces(list);
        setSpaceId((id) => id ?? list[0]?.id ?? null);
      })
      .catch((e) => setError(errorText(e)));
  useEffect(() => void load(), []);

  const space = spaces?.find((s) => s.id === spaceId) ?? null;
  const replace = (next: SpaceRecord) =>
    setSpaces((list) => list?.map((s) => (s.id === next.id ? { ...s, ...next } : s)) ?? null);

  return (
    <main class="admin">
      <h1>{t('admin.spaces.spaces')}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {spaces && spaces.length > 1 && (
        <label>
          {t('admin.sign_ups.space')}
          <select
            value={spaceId ?? ''}
            onChange={(e) => setSpaceId(Number((e.target as HTMLSelectElement).value))}
          >
            {spaces.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {space && (
        <div class="admin-grid" key={space.id}>
          <section aria-labelledby="hours-h">
            <h2 id="hours-h">{t('admin.spaces.openingHoursOf', { name: space.name })}</h2>
            <OpeningHoursEditor space={space} onSaved={(hours) => replace(withHours(space, hours))} />
          </section>
          <section aria-label={t('admin.spaces.timeZoneAndHolidays')}>
            <TimeZoneForm space={space} onSaved={replace} />
            <OccupancyForm space={space} onSaved={replace} />
            <Holidays space={space} />
          </section>
        </div>
      )}
    </main>
  );
}

const hoursOf = (space: SpaceRecord) => (space._embedded?.openingHours ?? []) as OpeningHour[];
const withHours = (space: SpaceRecord, hours: OpeningHour[]): SpaceRecord => ({
  ...space,
  _embedded: { ...space._embedded, openingHours: hours },
});

type Row = OpeningHour & { key: number };
let rowKeys = 0;
const TIME = '([01]\\d|2[0-3]):[0-5]\\d|24:00';

/** The week's opening hours: ranges per weekday, saved together (PUT replaces the whole list). */
function OpeningHoursEditor({ space, onSaved }: { space: SpaceRecord; onSaved: (h: OpeningHour[]) => void }) {
  const fromSpace = () => hoursOf(space).map((h) => ({ ...h, key: rowKeys++ }));
  const [rows, setRows] = useState<Row[]>(fromSpace);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Hours that would leave the space closed right now wait for the admin's confirmation.
  const [confirming, setConfirming] = useState<string | null>(null);
  const preview = useAccessPreview();

  const change = (key: number, field: 'fromTime' | 'untilTime', value: string) =>
    setRows(rows.map((r) => (r.key === key ? { ...r, [field]: value } : r)));

  async function save(e: Event, confirmed = false, previewed = false) {
    e.preventDefault();
    // Only a change that closes an open space asks: one closed now already stays closed.
    const closing = closedNowBy(hoursOf(space), space) ? null : closedNowBy(rows, space);
    if (!confirmed && closing) {
      setConfirming(closing);
      return;
    }
    setConfirming(null);
    const hours = rows
      .map(({ dayOfWeek, fromTime, untilTime }) => ({ dayOfWeek, fromTime, untilTime }))
      .sort((a, b) => a.dayOfWeek - b.dayOfWeek || a.fromTime.localeCompare(b.fromTime));
    setBusy(true);
    setStatus(null);
    setError(null);
    const change = { method: 'PUT' as const, path: `/spaces/${space.id}/opening-hours`, body: hours };
    if (!previewed && (await preview.holds(change, () => void save(e, true, true)))) {
      setBusy(false);
      return;
    }
    try {
      const saved = await spacesApi.setOpeningHours(space.id, hours);
      setRows(saved.map((h) => ({ ...h, key: rowKeys++ })));
      onSaved(saved);
      setStatus(saved.length ? t('admin.spaces.hoursSaved') : t('admin.spaces.hoursRemoved'));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={save} aria-label={t('admin.spaces.openingHours')}>
      <p class="muted">
        {rich(t('admin.spaces.hoursNote', { zone: space.timezone, midnight: slot('midnight') }), {
          midnight: <code>24:00</code>,
        })}
      </p>
      <table class="list hours">
        <tbody>
          {weekdays().map((day, i) => {
            const mine = rows.filter((r) => r.dayOfWeek === i + 1);
            return (
              <tr key={day}>
                <th scope="row">{day}</th>
                <td>
                  {mine.length === 0 && (
                    <span class="muted">
                      {rows.length === 0 ? t('admin.spaces.openAlways') : t('admin.spaces.closed')}
                    </span>
                  )}
                  {mine.map((r, n) => {
                    const suffix = n === 0 ? '' : ` (${n + 1})`;
                    return (
                      <span class="range" key={r.key}>
                        <input
                          aria-label={t('admin.spaces.dayFrom', { day, suffix })}
                          value={r.fromTime}
                          pattern={TIME}
                          placeholder="09:00"
                          size={5}
                          required
                          onInput={(e) => change(r.key, 'fromTime', (e.target as HTMLInputElement).value)}
                        />
                        –
                        <input
                          aria-label={t('admin.spaces.dayUntil', { day, suffix })}
                          value={r.untilTime}
                          pattern={TIME}
                          placeholder="18:00"
                          size={5}
                          required
                          onInput={(e) => change(r.key, 'untilTime', (e.target as HTMLInputElement).value)}
                        />
                        <button
                          type="button"
                          class="link"
                          aria-label={t('admin.spaces.removeHours', { day, suffix })}
                          onClick={() => setRows(rows.filter((x) => x.key !== r.key))}
                        >
                          {t('admin.spaces.remove')}
                        </button>
                      </span>
                    );
                  })}
                </td>
                <td>
                  <button
                    type="button"
                    class="secondary"
                    aria-label={t('admin.spaces.addHoursOn', { day })}
                    onClick={() => {
                      const last = mine[mine.length - 1];
                      const fromTime = last ? last.untilTime : '09:00';
                      const untilTime = last ? '24:00' : '18:00';
                      setRows([...rows, { dayOfWeek: i + 1, fromTime, untilTime, key: rowKeys++ }]);
                    }}
                  >
                    {t('admin.spaces.addHours')}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {status && (
        <p role="status" class="notice">
          {status}
        </p>
      )}
      {preview.panel}
      {confirming && (
        <div role="alert" class="warning">
          <p>{confirming}</p>
          <div class="actions">
            <button type="button" class="danger" onClick={(e) => void save(e, true)}>
              {t('admin.spaces.saveAndClose', { name: space.name })}
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(null)}>
              {t('admin.spaces.keepEditing')}
            </button>
          </div>
        </div>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || confirming !== null || preview.waiting}>
          {t('admin.spaces.saveOpeningHours')}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setRows(fromSpace());
            setError(null);
            setStatus(null);
          }}
        >
          {t('admin.spaces.undoChanges')}
        </button>
      </div>
    </form>
  );
}

/**
 * The warning when these hours leave the space closed at this moment (its wall time): members
 * would be refused at every door and machine as soon as they are saved. Null when open now.
 */
function closedNowBy(rows: OpeningHour[], space: SpaceRecord): string | null {
  // No hours is open at all times; a range the hub will refuse is left to its error.
  const valid = (t: string) => new RegExp(`^(${TIME})$`).test(t);
  if (
    rows.length === 0 ||
    rows.some((r) => !valid(r.fromTime) || !valid(r.untilTime) || r.fromTime >= r.untilTime)
  )
    return null;
  const now = wall(new Date(), space.timezone);
  const open = rows.some(
    (r) =>
      r.dayOfWeek === now.dayOfWeek &&
      minutesOf(r.fromTime) <= now.minutes &&
      now.minutes < minutesOf(r.untilTime),
  );
  if (open) return null;
  return t('admin.spaces.closesNow', {
    name: space.name,
    day: weekdays()[now.dayOfWeek - 1],
    time: now.time,
    zone: space.timezone,
  });
}

function zoneNames(): string[] {
  try {
    return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
  } catch {
    return [];
  }
}

function TimeZoneForm({ space, onSaved }: { space: SpaceRecord; onSaved: (s: SpaceRecord) => void }) {
  const [zone, setZone] = useState(space.timezone);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const now = wall(new Date(), space.timezone);

  async function save(e: Event) {
    e.preventDefault();
    setStatus(null);
    setError(null);
    try {
      const saved = await spacesApi.setTimezone(space, zone.trim());
      onSaved(saved);
      setZone(saved.timezone);
      setStatus(t('admin.spaces.zoneSaved', { zone: saved.timezone }));
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <form onSubmit={save} aria-label={t('admin.spaces.spaceTimeZone')}>
      <h2>{t('admin.spaces.timeZone')}</h2>
      <p>
        {t('admin.spaces.nowIn', {
          name: space.name,
          day: dayLabel(now.date),
          time: now.time,
          zone: space.timezone,
        })}
      </p>
      <div class="actions">
        <label class="grow">
          {t('admin.spaces.timeZone')}
          <input
            value={zone}
            list="time-zones"
            required
            onInput={(e) => setZone((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="secondary">
          {t('admin.spaces.saveTimeZone')}
        </button>
      </div>
      <datalist id="time-zones">
        {zoneNames().map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <p class="muted">{t('admin.spaces.openingHoursAndHolidays')}</p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {status && (
        <p role="status" class="notice">
          {status}
        </p>
      )}
    </form>
  );
}

/** Holidays: the list (upcoming, or all), add, edit, delete. */
function Holidays({ space }: { space: SpaceRecord }) {
  const [past, setPast] = useState(false);
  const [list, setList] = useState<HolidayRecord[]>([]);
  const [editing, setEditing] = useState<HolidayRecord | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    spacesApi
      .holidays(space.id, past)
      .then(setList)
      .catch((e) => setError(errorText(e)));
  useEffect(() => void load(), [space.id, past]);

  const name = (h: HolidayRecord) =>
    h.title || t('admin.spaces.holidayFrom', { from: localLabel(h.fromDateTime) });
  const preview = useAccessPreview();

  async function remove(h: HolidayRecord, previewed = false) {
    const change = { method: 'DELETE' as const, path: `/spaces/${space.id}/holidays/${h.id}` };
    if (
      !previewed &&
      (await preview.holds(change, () => void remove(h, true), t('admin.access_preview.deleteAnyway')))
    )
      return;
    await run(t('admin.spaces.deleted', { name: name(h) }), () => spacesApi.deleteHoliday(h));
  }

  async function run(done: string, work: () => Promise<unknown>) {
    setStatus(null);
    setError(null);
    try {
      await work();
      setStatus(done);
      setEditing(null);
      await load();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  }

  return (
    <>
      <h2 id="holidays-h">{t('admin.spaces.holidays')}</h2>
      <label class="check">
        <input
          type="checkbox"
          checked={past}
          onChange={(e) => setPast((e.target as HTMLInputElement).checked)}
        />
        {t('admin.spaces.showPast')}
      </label>
      <ul class="rows" aria-labelledby="holidays-h">
        {list.length === 0 && (
          <li class="muted">{past ? t('admin.spaces.noHolidays') : t('admin.spaces.noUpcoming')}</li>
        )}
        {list.map((h) => (
          <li key={h.id} aria-label={name(h)}>
            <span>
              <strong>{h.title ?? t('admin.bookings.rule.holiday')}</strong>: {localLabel(h.fromDateTime)} –{' '}
              {localLabel(h.untilDateTime)}
            </span>
            <span class="actions">
              <button
                type="button"
                class="secondary"
                aria-label={t('admin.form_parts.editWhat', { what: name(h) })}
                onClick={() => setEditing(h)}
              >
                {t('admin.spaces.edit')}
              </button>
              <button
                type="button"
                class="secondary"
                aria-label={t('admin.form_parts.deleteWhat', { what: name(h) })}
                onClick={() => void remove(h)}
              >
                {t('admin.spaces.delete')}
              </button>
            </span>
          </li>
        ))}
      </ul>
      {preview.panel}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {status && (
        <p role="status" class="notice">
          {status}
        </p>
      )}
      <HolidayForm
        key={editing?.id ?? 'new'}
        holiday={editing}
        space={space.id}
        zone={space.timezone}
        onCancel={() => setEditing(null)}
        onSave={(body) =>
          editing
            ? run(t('admin.spaces.savedHoliday', { name: body.title || t('admin.spaces.theHoliday') }), () =>
                spacesApi.updateHoliday(editing, body),
              )
            : run(t('admin.spaces.addedHoliday', { name: body.title || t('admin.spaces.theHoliday') }), () =>
                spacesApi.createHoliday(space.id, body),
              )
        }
      />
    </>
  );
}

function HolidayForm({
  holiday,
  space,
  zone,
  onSave,
  onCancel,
}: {
  holiday: HolidayRecord | null;
  space: number;
  zone: string;
  onSave: (body: HolidayInput) => Promise<boolean>;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(holiday?.title ?? '');
  const [from, setFrom] = useState(holiday?.fromDateTime ?? '');
  const [until, setUntil] = useState(holiday?.untilDateTime ?? '');
  const heading = holiday
    ? t('admin.spaces.editHoliday', { title: holiday.title ?? '' }).trim()
    : t('admin.spaces.newHoliday');

  const preview = useAccessPreview();

  async function submit(e: Event, previewed = false) {
    e.preventDefault();
    const body = { title: title.trim() || null, fromDateTime: from, untilDateTime: until };
    const change = holiday
      ? {
          method: 'PUT' as const,
          path: `/spaces/${space}/holidays/${holiday.id}`,
          body: { ...body, lockVersion: holiday.lockVersion },
        }
      : { method: 'POST' as const, path: `/spaces/${space}/holidays`, body };
    if (!previewed && (await preview.holds(change, () => void submit(e, true)))) return;
    const ok = await onSave(body);
    if (ok && !holiday) {
      setTitle('');
      setFrom('');
      setUntil('');
    }
  }

  return (
    <form onSubmit={submit} aria-label={heading} class="holiday-form">
      <h3>{heading}</h3>
      <Field label={t('admin.spaces.title')} value={title} set={setTitle} maxLength={200} />
      <div class="actions">
        <Field
          label={t('bookings.from', { zone })}
          type="datetime-local"
          value={from}
          set={setFrom}
          required
        />
        <Field
          label={t('bookings.until', { zone })}
          type="datetime-local"
          value={until}
          set={setUntil}
          required
        />
      </div>
      {preview.panel}
      <div class="actions">
        <button type="submit" class="primary" disabled={preview.waiting}>
          {holiday ? t('admin.spaces.saveHoliday') : t('admin.spaces.addHoliday')}
        </button>
        {holiday && (
          <button type="button" class="secondary" onClick={onCancel}>
            {t('admin.spaces.cancelEditing')}
          </button>
        )}
      </div>
    </form>
  );
}
