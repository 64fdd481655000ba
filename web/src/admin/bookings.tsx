import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { Field } from '../field';
import { adminApi, type MemberRecord, memberName, type ResourceRecord } from './admin-api';
import {
  type BookingRecord,
  type BookingRule,
  type HolidayRecord,
  type OpeningHour,
  type SpaceRecord,
  spacesApi,
} from './spaces-api';
import './spaces.css';
import { addDays, dayLabel, dayOfWeek, instant, localLabel, minutesOf, mondayOf, wall } from './zoned';
import { t } from '../i18n/i18n';

/** The rules of the hub's booking refusals (`data.rule`), in the words the page shows. */
const ruleNames: BookingRule[] = [
  'overlappingBooking',
  'outsideOpeningHours',
  'holiday',
  'outsideBookingWindow',
  'notAlignedToSlots',
  'dailyLimit',
  'weeklyLimit',
  'notBookable',
  'invalidRange',
  'unknownMember',
  'unknownResource',
  'bookingStarted',
  'lockedIn',
];

interface Refusal {
  rule: string;
  title: string;
  message: string;
  detail: string | null;
}

const HOUR_PX = 40;

/** Bookings: a week calendar per resource in the space's time zone; book a free slot, cancel. */
export function BookingsPage() {
  const [resources, setResources] = useState<ResourceRecord[]>([]);
  const [resourceId, setResourceId] = useState<number | null>(null);
  const [space, setSpace] = useState<SpaceRecord | null>(null);
  const [holidays, setHolidays] = useState<HolidayRecord[]>([]);
  const [monday, setMonday] = useState<string | null>(null);
  const [bookings, setBookings] = useState<BookingRecord[]>([]);
  const [names, setNames] = useState<Map<number, string>>(new Map());
  const [pick, setPick] = useState<{ date: string; time: string } | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [error, setError] = useState<string | null>(null);

  const resource = resources.find((r) => r.id === resourceId) ?? null;
  const zone = space?.timezone ?? 'UTC';

  useEffect(() => {
    adminApi
      .resources()
      .then((all) => {
        const sorted = [...all].sort((a, b) => Number(b.canBeBooked) - Number(a.canBeBooked));
        setResources(sorted);
        setResourceId((id) => id ?? sorted[0]?.id ?? null);
      })
      .catch((e: ApiError) => setError(e.message));
  }, []);

  useEffect(() => {
    if (!resource) return;
    Promise.all([spacesApi.space(resource.space), spacesApi.holidays(resource.space, true)])
      .then(([s, h]) => {
        setSpace(s);
        setHolidays(h);
        setMonday((m) => m ?? mondayOf(wall(new Date(), s.timezone).date));
      })
      .catch((e: ApiError) => setError(e.message));
  }, [resource?.space]);

  const loadWeek = async () => {
    if (!resource || !space || !monday) return;
    try {
      const list = await spacesApi.bookings(
        resource.id,
        instant(monday, '00:00', zone),
        instant(addDays(monday, 7), '00:00', zone),
      );
      setBookings(list);
      const missing = [...new Set(list.map((b) => b.member))].filter((m) => !names.has(m));
      if (missing.length) {
        const found = await Promise.all(
          missing.map((id) =>
            spacesApi.member(id).then(
              (m) => [id, memberName(m)] as const,
              () => [id, `Member ${id}`] as const,
            ),
          ),
        );
        setNames((old) => new Map([...old, ...found]));
      }
    } catch (e) {
      setError((e as ApiError).message);
    }
  };
  useEffect(() => {
    void loadWeek();
    // Bookings members make meanwhile show up without a reload.
    const t = setInterval(() => void loadWeek(), 30_000);
    return () => clearInterval(t);
  }, [resource?.id, space?.id, monday]);

  const who = (id: number) => names.get(id) ?? `Member ${id}`;
  const span = (b: { fromDateTime: string; untilDateTime: string }) => {
    const from = wall(b.fromDateTime, zone);
    const until = wall(b.untilDateTime, zone);
    return `${dayLabel(from.date)} ${from.time}–${until.date === from.date ? '' : `${dayLabel(until.date)} `}${until.time}`;
  };

  async function book(member: MemberRecord, date: string, from: string, until: string, memberRules: boolean) {
    if (!resource) return;
    setStatus(null);
    setRefusal(null);
    setError(null);
    try {
      const b = await spacesApi.createBooking({
        resource: resource.id,
        member: member.id,
        fromDateTime: instant(date, from, zone).toISOString(),
        untilDateTime: instant(date, until, zone).toISOString(),
        applyMemberRules: memberRules,
      });
      setNames((old) => new Map(old).set(member.id, memberName(member)));
      setStatus(
        t('admin.bookings.booked', { resource: resource.name, member: memberName(member), span: span(b) }),
      );
      const week = mondayOf(date);
      if (week !== monday) setMonday(week);
      else await loadWeek();
    } catch (e) {
      setRefusal(await refusalOf(e as ApiError));
    }
  }

  async function refusalOf(e: ApiError): Promise<Refusal> {
    const rule = typeof e.data.rule === 'string' ? e.data.rule : 'unknown';
    const title = ruleNames.includes(rule as BookingRule)
      ? t(`admin.bookings.rule.${rule as BookingRule}`)
      : `HTTP ${e.status}`;
    let detail: string | null = null;
    if (rule === 'overlappingBooking' && e.data.overlappingFrom) {
      const member = e.data.overlappingMember as number;
      const name =
        names.get(member) ??
        (await spacesApi.member(member).then(memberName, () => t('admin.common.member', { id: member })));
      detail = t('admin.bookings.hasItBooked', {
        name,
        span: span({ fromDateTime: e.data.overlappingFrom, untilDateTime: e.data.overlappingUntil }),
      });
    } else if (rule === 'holiday' && e.data.holidayFrom) {
      detail = `${e.data.holidayTitle ?? t('admin.bookings.rule.holiday')}: ${localLabel(e.data.holidayFrom)} – ${localLabel(e.data.holidayUntil)}.`;
    }
    return { rule, title, message: e.message, detail };
  }

  async function cancel(b: BookingRecord) {
    setStatus(null);
    setRefusal(null);
    setError(null);
    try {
      await spacesApi.cancelBooking(b);
      setStatus(t('admin.bookings.cancelled', { member: who(b.member), span: span(b) }));
    } catch (e) {
      setRefusal(await refusalOf(e as ApiError));
    }
    await loadWeek();
  }

  const hours = (space?._embedded?.openingHours ?? []) as OpeningHour[];
  const days = monday ? Array.from({ length: 7 }, (_, i) => addDays(monday, i)) : [];
  const today = wall(new Date(), zone).date;

  // Rows from the earliest opening (or 08:00) to the latest closing (or 20:00), widened for bookings.
  let first = 8 * 60;
  let last = 20 * 60;
  for (const h of hours) {
    first = Math.min(first, minutesOf(h.fromTime));
    last = Math.max(last, minutesOf(h.untilTime));
  }
  for (const b of bookings) {
    const f = wall(b.fromDateTime, zone);
    const u = wall(b.untilDateTime, zone);
    const overnight = u.date !== f.date && u.minutes > 0;
    first = Math.min(first, overnight ? 0 : f.minutes);
    last = Math.max(last, overnight || u.date !== f.date ? 24 * 60 : u.minutes);
  }
  const startHour = Math.floor(first / 60);
  const endHour = Math.ceil(last / 60);
  const rows = Array.from({ length: endHour - startHour }, (_, i) => startHour + i);
  const y = (minutes: number) =>
    ((Math.min(Math.max(minutes, startHour * 60), endHour * 60) - startHour * 60) / 60) * HOUR_PX;

  return (
    <main class="admin">
      <h1>{t('admin.bookings.bookings')}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <label>
          {t('admin.log_table.resource')}
          <select
            value={resourceId ?? ''}
            onChange={(e) => setResourceId(Number((e.target as HTMLSelectElement).value))}
          >
            {resources.map((r) => (
              <option key={r.id} value={r.id}>
                {r.canBeBooked ? r.name : t('admin.bookings.cannotBeBooked', { name: r.name })}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          class="secondary"
          disabled={!monday}
          onClick={() => monday && setMonday(addDays(monday, -7))}
        >
          {t('admin.bookings.previousWeek')}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!space}
          onClick={() => space && setMonday(mondayOf(wall(new Date(), space.timezone).date))}
        >
          {t('admin.bookings.thisWeek')}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!monday}
          onClick={() => monday && setMonday(addDays(monday, 7))}
        >
          {t('admin.bookings.nextWeek')}
        </button>
      </div>
      <div class="admin-grid">
        <section aria-labelledby="week-h">
          <h2 id="week-h">
            {resource && monday
              ? t('admin.bookings.weekOf', { name: resource.name, day: dayLabel(monday, true) })
              : t('admin.bookings.week')}
          </h2>
          <p class="muted">{t('admin.bookings.legend', { zone })}</p>
          {monday && (
            <div class="week" style={`--day-height: ${rows.length * HOUR_PX}px; --hour: ${HOUR_PX}px`}>
              <div class="week-corner" />
              {days.map((d) => (
                <div class={`week-head${d === today ? ' today' : ''}`} key={d} id={`day-${d}`}>
                  {dayLabel(d)}
                </div>
              ))}
              <div class="week-gutter" aria-hidden="true">
                {rows.map((h) => (
                  <span key={h} style={{ top: `${(h - startHour) * HOUR_PX}px` }}>
                    {String(h).padStart(2, '0')}:00
                  </span>
                ))}
              </div>
              {days.map((d) => {
                const dayStart = instant(d, '00:00', zone).getTime();
                const dayEnd = instant(addDays(d, 1), '00:00', zone).getTime();
                const open = hours.filter((h) => h.dayOfWeek === dayOfWeek(d));
                const mine = bookings.filter(
                  (b) => Date.parse(b.fromDateTime) < dayEnd && Date.parse(b.untilDateTime) > dayStart,
                );
                const offs = holidays.filter(
                  (h) => h.fromDateTime < `${addDays(d, 1)}T00:00` && h.untilDateTime > `${d}T00:00`,
                );
                return (
                  <section class="week-day" aria-labelledby={`day-${d}`} key={d}>
                    {hours.length > 0 &&
                      closedRanges(open).map(([a, b]) => (
                        <div
                          class="band closed"
                          key={`c${a}`}
                          style={{ top: `${y(a)}px`, height: `${y(b) - y(a)}px` }}
                        />
                      ))}
                    {offs.map((h) => {
                      const a = h.fromDateTime.slice(0, 10) < d ? 0 : minutesOf(h.fromDateTime.slice(11));
                      const b =
                        h.untilDateTime.slice(0, 10) > d ? 24 * 60 : minutesOf(h.untilDateTime.slice(11));
                      return (
                        <div
                          class="band holiday"
                          key={`h${h.id}`}
                          style={{ top: `${y(a)}px`, height: `${y(b) - y(a)}px` }}
                        >
                          {h.title ?? t('admin.bookings.rule.holiday')}
                        </div>
                      );
                    })}
                    {rows.map((hr) => {
                      const time = `${String(hr).padStart(2, '0')}:00`;
                      return (
                        <button
                          type="button"
                          class="slot"
                          key={hr}
                          aria-label={t('admin.bookings.bookAt', { day: dayLabel(d), time })}
                          aria-pressed={pick?.date === d && pick.time === time}
                          style={{ top: `${(hr - startHour) * HOUR_PX}px` }}
                          onClick={() => setPick({ date: d, time })}
                        />
                      );
                    })}
                    <ul
                      class="day-bookings"
                      aria-label={t('admin.bookings.bookingsOn', { day: dayLabel(d) })}
                    >
                      {mine.map((b) => {
                        const a = Math.max(dayStart, Date.parse(b.fromDateTime));
                        const z = Math.min(dayEnd, Date.parse(b.untilDateTime));
                        const top = y(Math.round((a - dayStart) / 60_000));
                        const bottom = y(Math.round((z - dayStart) / 60_000));
                        const label = `${who(b.member)} ${wall(b.fromDateTime, zone).time}–${wall(b.untilDateTime, zone).time}`;
                        return (
                          <li
                            class="booking"
                            key={b.id}
                            aria-label={label}
                            style={{ top: `${top}px`, height: `${bottom - top}px` }}
                          >
                            <strong>{who(b.member)}</strong>
                            <span>
                              {wall(b.fromDateTime, zone).time}–{wall(b.untilDateTime, zone).time}
                            </span>
                            <button
                              type="button"
                              class="link"
                              aria-label={t('admin.bookings.cancelOf', {
                                member: who(b.member),
                                span: span(b),
                              })}
                              onClick={() => void cancel(b)}
                            >
                              {t('admin.bookings.cancel')}
                            </button>
                          </li>
                        );
                      })}
                    </ul>
                  </section>
                );
              })}
            </div>
          )}
        </section>
        <section aria-label={t('admin.bookings.book')}>
          {refusal && (
            <div role="alert" class="refusal">
              <strong>{t('admin.bookings.refusedBy', { title: refusal.title, rule: refusal.rule })}</strong>
              <p>
                {refusal.message}
                {/[.!?]$/.test(refusal.message) ? '' : '.'}
                {refusal.detail ? ` ${refusal.detail}` : ''}
              </p>
            </div>
          )}
          {status && (
            <p role="status" class="notice">
              {status}
            </p>
          )}
          {resource && space && <BookingForm resource={resource} zone={zone} pick={pick} onBook={book} />}
          {space && (
            <p class="muted">
              {t('admin.bookings.rules', {
                min: space.bookingWindowMinHours,
                max: space.bookingWindowMaxDays,
                slot: 60 / space.bookingSlotsPerHour,
              })}
              {space.bookingOpeningHours ? t('admin.bookings.withinOpeningHours') : ''}
              {space.bookingMaxMinutesPerMemberDay
                ? t('admin.bookings.perDay', { minutes: space.bookingMaxMinutesPerMemberDay })
                : ''}
              {space.bookingMaxMinutesPerMemberWeek
                ? t('admin.bookings.perWeek', { minutes: space.bookingMaxMinutesPerMemberWeek })
                : ''}
              {t('admin.bookings.untick')}
            </p>
          )}
        </section>
      </div>
    </main>
  );
}

/** The parts of a day (minutes) outside its opening ranges. */
function closedRanges(open: OpeningHour[]): [number, number][] {
  const ranges = open
    .map((h) => [minutesOf(h.fromTime), minutesOf(h.untilTime)] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  const closed: [number, number][] = [];
  let at = 0;
  for (const [a, b] of ranges) {
    if (a > at) closed.push([at, a]);
    at = Math.max(at, b);
  }
  if (at < 24 * 60) closed.push([at, 24 * 60]);
  return closed;
}

function BookingForm({
  resource,
  zone,
  pick,
  onBook,
}: {
  resource: ResourceRecord;
  zone: string;
  pick: { date: string; time: string } | null;
  onBook: (
    member: MemberRecord,
    date: string,
    from: string,
    until: string,
    memberRules: boolean,
  ) => Promise<void>;
}) {
  const [q, setQ] = useState('');
  const [members, setMembers] = useState<MemberRecord[]>([]);
  const [memberId, setMemberId] = useState<number | null>(null);
  const [date, setDate] = useState(wall(new Date(), zone).date);
  const [from, setFrom] = useState('10:00');
  const [until, setUntil] = useState('11:00');
  const [memberRules, setMemberRules] = useState(true);
  const [busy, setBusy] = useState(false);
  // A free hour chosen in the calendar fills in the day and one hour from there.
  useEffect(() => {
    if (!pick) return;
    const next = Number(pick.time.slice(0, 2)) + 1;
    setDate(pick.date);
    setFrom(pick.time);
    setUntil(next >= 24 ? '23:59' : `${String(next).padStart(2, '0')}:00`);
  }, [pick]);

  useEffect(() => {
    const t = setTimeout(
      () =>
        adminApi
          .members(q.trim())
          .then((list) => {
            setMembers(list);
            setMemberId((id) => (id !== null && list.some((m) => m.id === id) ? id : (list[0]?.id ?? null)));
          })
          .catch(() => setMembers([])),
      150,
    );
    return () => clearTimeout(t);
  }, [q]);

  const member = members.find((m) => m.id === memberId) ?? null;

  async function submit(e: Event) {
    e.preventDefault();
    if (!member) return;
    setBusy(true);
    try {
      await onBook(member, date, from, until, memberRules);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-label={t('admin.bookings.newBooking')}>
      <h2>{t('admin.bookings.bookName', { name: resource.name })}</h2>
      <Field label={t('admin.bookings.findAMember')} type="search" value={q} set={setQ} />
      <label>
        {t('admin.log_table.member')}
        <select
          value={memberId ?? ''}
          onChange={(e) => setMemberId(Number((e.target as HTMLSelectElement).value))}
        >
          {members.map((m) => (
            <option key={m.id} value={m.id}>
              {memberName(m)}
              {m.emailAddress ? ` (${m.emailAddress})` : ''}
            </option>
          ))}
        </select>
      </label>
      <Field label={t('admin.bookings.day')} type="date" value={date} set={setDate} required />
      <div class="actions">
        <Field
          label={t('bookings.from', { zone })}
          type="time"
          step={60}
          value={from}
          set={setFrom}
          required
        />
        <Field
          label={t('bookings.until', { zone })}
          type="time"
          step={60}
          value={until}
          set={setUntil}
          required
        />
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={memberRules}
          onChange={(e) => setMemberRules((e.target as HTMLInputElement).checked)}
        />
        {t('admin.bookings.holdToRules')}
      </label>
      <button type="submit" class="primary" disabled={!member || busy}>
        {t('admin.bookings.book')}
      </button>
    </form>
  );
}
