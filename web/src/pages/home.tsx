import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type AccessCheck,
  ApiError,
  api,
  type BookingRecord,
  type CheckoutLink,
  type InvoiceRecord,
  type MemberBalance,
  type MemberCredit,
  type MemberKeyRecord,
  type OnlinePayments,
  type ResourceAvailability,
  type ResourceLogRecord,
  type ResourceRecord,
  type ResourceStatus,
  type StripePayment,
  type UserMe,
} from '../api';
import { Field } from '../field';
import { dateTime, elapsed, verdictText } from '../format';
import { addDays, dayLabel, instant, wall } from '../admin/zoned';
import { useLive } from '../live';
import { HouseRulesBanner } from './house-rules-banner';
import { describe } from './sign-in';
import { dayText, money, t, tOr } from '../i18n/i18n';

/** Loads once (and again on `reload`); errors become text. */
function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    load()
      .then((v) => {
        setValue(v);
        setError(null);
      })
      .catch((err) => setError(err instanceof ApiError && err.status === 404 ? null : describe(err)));
  }, [...deps, tick]);
  return { value, error, reload: () => setTick((n) => n + 1) };
}

/** A member's start page: what I may use, what runs, my bookings, activity, card, packages, invoices. */
export function HomePage({ me }: { me: UserMe }) {
  const resources = useLoad(() => api.resources());
  const names = new Map((resources.value ?? []).map((r) => [r.id, r.name]));
  return (
    <main>
      <h1>{t('home.hello', { name: me.firstName || me.emailAddress })}</h1>
      <HouseRulesBanner />
      <Resources resources={resources.value} error={resources.error} />
      <Bookings me={me} resources={resources.value ?? []} />
      <Activity me={me} names={names} />
      <KeyCard me={me} />
      <Packages me={me} />
      <Trainings me={me} />
      <Invoices me={me} />
    </main>
  );
}

function Resources({ resources, error }: { resources: ResourceRecord[] | null; error: string | null }) {
  const live = useLive();
  /** Each resource's verdict, with the live state (`verdictKey`) it was asked in. */
  const [checks, setChecks] = useState<Map<number, { check: AccessCheck; key: string }>>(new Map());
  const [now, setNow] = useState(Date.now());
  // Each verdict is asked again when its resource's live state changes in a way it depends on
  // (bridge online or offline, a session starting or ending), and only that one: the line under
  // each name never contradicts the badge beside it.
  const asked = useRef({ list: null as ResourceRecord[] | null, keys: new Map<number, string>(), seq: 0 });
  const latest = useRef(new Map<number, number>());
  const liveKeys = (resources ?? []).map((r) => `${r.id}=${verdictKey(live.statuses.get(r.id))}`).join(',');
  useEffect(() => {
    if (!resources) return;
    // A new list: every verdict (its keys are reset when the asking starts, so a change that
    // cancels the wait leaves the list still new).
    const fresh = asked.current.list !== resources;
    const placed = new Map<number, string>();
    const due = fresh
      ? resources
      : resources.filter((r) => {
          const key = verdictKey(live.statuses.get(r.id));
          const was = asked.current.keys.get(r.id);
          // The live snapshot arriving after the first verdicts is not a change: those verdicts
          // hold for the state it brings, and only for it (a later change hides them until the
          // new verdict is in).
          if (was === undefined || was === '') {
            asked.current.keys.set(r.id, key);
            placed.set(r.id, key);
            return false;
          }
          return was !== key;
        });
    if (placed.size > 0)
      setChecks((old) => {
        const next = new Map(old);
        for (const [id, key] of placed) {
          const entry = next.get(id);
          if (entry && entry.key === '') next.set(id, { ...entry, key });
        }
        return next;
      });
    if (due.length === 0) return;
    const t = setTimeout(
      () => {
        if (fresh) asked.current = { list: resources, keys: new Map(), seq: asked.current.seq };
        const { keys } = asked.current;
        const seq = ++asked.current.seq;
        for (const r of due) {
          keys.set(r.id, verdictKey(live.statuses.get(r.id)));
          latest.current.set(r.id, seq);
        }
        const askedIn = new Map(keys);
        void Promise.all(due.map((r) => api.accessCheck(r.id).catch(() => null))).then((list) =>
          setChecks((old) => {
            const next = new Map(old);
            // An answer older than one asked since for the same resource is dropped.
            for (const c of list)
              if (c && latest.current.get(c.resource.id) === seq)
                next.set(c.resource.id, {
                  check: c,
                  // Asked before the live snapshot: it holds for the state the snapshot brought.
                  key: askedIn.get(c.resource.id) || asked.current.keys.get(c.resource.id) || '',
                });
            return next;
          }),
        );
      },
      fresh ? 0 : 150,
    );
    return () => clearTimeout(t);
  }, [resources, liveKeys]);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const running = [...live.statuses.values()].filter((s) => s.session?.mine);
  return (
    <>
      {running.length > 0 && (
        <section aria-labelledby="running">
          <h2 id="running">{t('home.runningNow')}</h2>
          <ul class="cards">
            {running.map((s) => (
              <li key={s.resource} class="card mine">
                <a href={`/r/${s.resource}`}>
                  {resources?.find((r) => r.id === s.resource)?.name ??
                    t('common.resource', { id: s.resource })}
                </a>
                <span>{t('home.runningFor', { elapsed: elapsed(s.session!.since, now) })}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="resources">
        <h2 id="resources">{t('home.resources')}</h2>
        {error && <p class="error">{error}</p>}
        {resources && resources.length === 0 && <p>{t('home.noResources')}</p>}
        <ul class="cards">
          {(resources ?? []).map((r) => {
            const status = live.statuses.get(r.id);
            const entry = checks.get(r.id);
            // A verdict asked in another state than the one shown is not shown while the new one
            // is on its way (a fraction of a second): the line never contradicts the badge.
            const shown = verdictKey(status);
            const current = entry && (entry.key === '' || shown === '' || entry.key === shown);
            const check = entry?.check;
            const noun = r.controlType === 'door' ? 'door' : 'machine';
            const state = !status?.bridge
              ? 'notConnected'
              : !status.online
                ? 'offline'
                : status.session?.mine
                  ? 'inUseByYou'
                  : status.session
                    ? 'inUse'
                    : 'free';
            const badge = {
              notConnected: 'not-connected',
              offline: 'offline',
              inUseByYou: 'in-use-by-you',
              inUse: 'in-use',
              free: 'free',
            }[state];
            return (
              <li key={r.id} class={`card ${check?.allowed ? 'ok' : 'no'}`}>
                <a href={`/r/${r.id}`}>{r.name}</a>
                <span class={`badge ${badge}`}>{t(`home.state.${state}`)}</span>
                {check && current && <span class="small">{verdictText(check, noun, null)}</span>}
              </li>
            );
          })}
        </ul>
      </section>
    </>
  );
}

/** What a verdict depends on in a resource's live state (unknown until the live snapshot: ''). */
function verdictKey(status: ResourceStatus | undefined): string {
  if (!status) return '';
  // An interlock that opens or closes changes the verdict (reason interlock).
  const interlocks = (status.inputs ?? [])
    .filter((i) => i.kind === 'interlock')
    .map((i) => `${i.name}=${i.active}`)
    .join(',');
  return `${status.bridge}:${status.online}:${status.session?.id ?? ''}:${interlocks}`;
}

/**
 * My bookings, and the form to book from a resource's free/busy view. Days and times are the
 * space's wall time (GET /resources/{id}/availability tells its zone): a member's "10:00" is
 * 10:00 in the space, whatever zone the phone is in.
 */
function Bookings({ me, resources }: { me: UserMe; resources: ResourceRecord[] }) {
  const from = new Date(Date.now() - 3600_000).toISOString();
  const list = useLoad(() => api.bookings(me.id, from), [me.id]);
  const bookable = resources.filter((r) => r.canBeBooked);
  const [resource, setResource] = useState<number | ''>('');
  const chosen = resource || bookable[0]?.id;
  const [zone, setZone] = useState<string | null>(null);
  const [day, setDay] = useState('');
  const [start, setStart] = useState('18:00');
  const [end, setEnd] = useState('19:00');
  const [view, setView] = useState<ResourceAvailability | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const names = new Map(resources.map((r) => [r.id, r.name]));

  // The chosen day's free/busy view; the first answer also tells the space's zone and today there.
  useEffect(() => {
    if (!chosen) return;
    let live = true;
    const z = zone ?? 'UTC';
    const shownDay = day || wall(new Date(), z).date;
    const fromAt = instant(addDays(shownDay, zone ? 0 : -1), '00:00', z).toISOString();
    const untilAt = instant(addDays(shownDay, zone ? 1 : 2), '00:00', z).toISOString();
    api.availability(chosen, fromAt, untilAt).then(
      (v) => {
        if (!live) return;
        if (!zone) {
          setZone(v.timezone);
          if (!day) setDay(wall(new Date(), v.timezone).date);
          return;
        }
        setView(v);
      },
      (err) => live && setMessage(describe(err)),
    );
    return () => {
      live = false;
    };
  }, [chosen, day, zone, tick]);

  const local = (iso: string) => (zone ? wall(iso, zone) : null);
  const when = (b: BookingRecord) => {
    if (!zone) return dateTime(b.fromDateTime);
    const a = wall(b.fromDateTime, zone);
    return `${dayLabel(a.date)} ${a.time}–${wall(b.untilDateTime, zone).time}`;
  };

  async function create(event: Event) {
    event.preventDefault();
    if (!chosen || !zone) return;
    setMessage(null);
    try {
      await api.createBooking(
        chosen,
        instant(day, start, zone).toISOString(),
        instant(day, end, zone).toISOString(),
      );
      setMessage(
        t('bookings.booked', {
          name: names.get(chosen) ?? t('bookings.it'),
          day: dayLabel(day),
          from: start,
          until: end,
        }),
      );
      list.reload();
      setTick((n) => n + 1);
    } catch (err) {
      setMessage(describe(err));
    }
  }

  async function cancel(booking: BookingRecord) {
    try {
      await api.cancelBooking(booking);
      list.reload();
      setTick((n) => n + 1);
    } catch (err) {
      setMessage(describe(err));
    }
  }

  return (
    <section aria-labelledby="bookings">
      <h2 id="bookings">{t('bookings.title')}</h2>
      {list.error && <p class="error">{list.error}</p>}
      {list.value?.length === 0 && <p>{t('bookings.none')}</p>}
      <ul class="rows">
        {(list.value ?? []).map((b) => (
          <li key={b.id}>
            <span>
              {names.get(b.resource) ?? t('common.resource', { id: b.resource })}: {when(b)}
            </span>
            <button
              type="button"
              class="secondary"
              onClick={() => cancel(b)}
              aria-label={t('bookings.cancelLabel', {
                name: names.get(b.resource) ?? t('common.resource', { id: b.resource }),
                when: when(b),
              })}
            >
              {t('common.cancel')}
            </button>
          </li>
        ))}
      </ul>
      {bookable.length > 0 && (
        <form class="inline-form" onSubmit={create} aria-label={t('bookings.newBooking')}>
          <label>
            {t('bookings.machine')}
            <select
              value={chosen}
              onChange={(e) => setResource(Number((e.target as HTMLSelectElement).value) || '')}
              required
            >
              {bookable.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          </label>
          <Field label={t('bookings.day')} type="date" value={day} set={setDay} required />
          <Field
            label={t('bookings.from', { zone: zone ?? '…' })}
            type="time"
            step={900}
            value={start}
            set={setStart}
            required
          />
          <Field
            label={t('bookings.until', { zone: zone ?? '…' })}
            type="time"
            step={900}
            value={end}
            set={setEnd}
            required
          />
          <button type="submit" class="primary" disabled={!zone || !day}>
            {t('bookings.book')}
          </button>
        </form>
      )}
      {view && zone && chosen && (
        <FreeBusy
          view={view}
          day={day}
          zone={zone}
          name={names.get(chosen) ?? ''}
          local={local}
          choose={(from, until) => {
            setStart(clock(from));
            setEnd(clock(until));
          }}
        />
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}

/** One day of a resource: busy times (mine named), free times between, within opening hours. */
function FreeBusy(props: {
  view: ResourceAvailability;
  day: string;
  zone: string;
  name: string;
  local: (iso: string) => { date: string; minutes: number } | null;
  /** Puts a free hour into the form (From, Until). */
  choose: (from: number, until: number) => void;
}) {
  const { view, day } = props;
  const dow = ((new Date(`${day}T12:00:00Z`).getUTCDay() + 6) % 7) + 1;
  const always = view.openingHours.length === 0;
  // What is left of the day: from now (to the quarter hour) today, nothing on a past day.
  const now = props.local(new Date().toISOString());
  const left = !now || now.date < day ? 0 : now.date > day ? 24 * 60 : now.minutes - (now.minutes % 15);
  const hours: [number, number][] = always
    ? [[0, 24 * 60]]
    : view.openingHours
        .filter((h) => h.dayOfWeek === dow)
        .map((h): [number, number] => [minutes(h.fromTime), minutes(h.untilTime)]);
  const open = hours.map(([a, b]): [number, number] => [Math.max(a, left), b]).filter(([a, b]) => b > a);
  // Busy ranges clipped to the day, in minutes since the space's midnight.
  const busy = view.busy
    .map((b) => {
      const a = props.local(b.fromDateTime);
      const z = props.local(b.untilDateTime);
      const s = !a || a.date < day ? 0 : a.date > day ? 24 * 60 : a.minutes;
      const e = !z || z.date > day ? 24 * 60 : z.date < day ? 0 : z.minutes;
      return { s, e, mine: b.mine };
    })
    .filter((b) => b.e > b.s);
  const rows: { s: number; e: number; kind: 'free' | 'busy' | 'mine' }[] = [];
  for (const [os, oe] of open) {
    let at = os;
    for (const b of busy) {
      if (b.e <= os || b.s >= oe) continue;
      if (b.s > at) rows.push({ s: at, e: b.s, kind: 'free' });
      rows.push({ s: Math.max(b.s, os), e: Math.min(b.e, oe), kind: b.mine ? 'mine' : 'busy' });
      at = Math.max(at, b.e);
    }
    if (at < oe) rows.push({ s: at, e: oe, kind: 'free' });
  }
  return (
    <div class="free-busy">
      <p class="small">
        {t('bookings.zoneNote', { name: props.name, day: dayLabel(day), zone: props.zone })}{' '}
        {always ? t('bookings.openAlways') : hours.length === 0 ? t('bookings.closedDay') : ''}
        {left >= 24 * 60
          ? ` ${t('bookings.dayOver')}`
          : hours.length > 0 && open.length === 0
            ? ` ${t('bookings.closedRest')}`
            : ''}
      </p>
      <ul class="rows" aria-label={t('bookings.freeBusyOf', { name: props.name })}>
        {rows.map((r) => (
          <li key={`${r.s}-${r.kind}`} class={r.kind === 'free' ? 'ok' : 'bad'}>
            <span>
              {clock(r.s)}–{clock(r.e)}
            </span>
            <span>
              {r.kind === 'free'
                ? t('bookings.free')
                : r.kind === 'mine'
                  ? t('bookings.bookedByYou')
                  : t('bookings.bookedOther')}
            </span>
            {/* The time inputs stop at 23:45: a free range from then on is left to type. */}
            {r.kind === 'free' && quarter(r.s) < Math.min(r.e, lastStart + 15) && (
              <button
                type="button"
                class="link"
                onClick={() => props.choose(quarter(r.s), Math.min(r.e, quarter(r.s) + 60, lastStart + 15))}
              >
                {t('bookings.choose', { time: clock(quarter(r.s)) })}
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The last start the form offers (23:30, so a booking ends by 23:45, the last quarter a time input takes). */
const lastStart = 23 * 60 + 30;
/** The form's times go by quarter hours (step 900): a free range is offered from its first. */
const quarter = (m: number) => Math.ceil(m / 15) * 15;
const minutes = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const clock = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

function Activity({ me, names }: { me: UserMe; names: Map<number, string> }) {
  const logs = useLoad<ResourceLogRecord[]>(() => api.myLogs(me.id), [me.id]);
  // Times as the space's clocks show them (the member may read them elsewhere).
  const space = useLoad(() => api.space(me.space), [me.space]);
  return (
    <section aria-labelledby="activity">
      <h2 id="activity">{t('activity.title')}</h2>
      {logs.error && <p class="error">{logs.error}</p>}
      {logs.value?.length === 0 && <p>{t('activity.nothing')}</p>}
      <ul class="rows">
        {(logs.value ?? []).map((l) => (
          <li key={l.id}>
            <span>
              {dateTime(l.createdAt, space.value?.timezone)} ·{' '}
              {names.get(l.resource) ?? t('common.resource', { id: l.resource })}
            </span>
            <span class={l.type === 'denied' ? 'bad' : ''}>{logWords(l)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** "Allowed", "Denied: wrong code", "Offline" ... from a log's type and reason. */
function logWords(log: ResourceLogRecord): string {
  const words = (camel: string) => camel.replace(/([A-Z])/g, ' $1').toLowerCase();
  const type = words(log.type);
  const text = tOr(`log.type.${log.type}`, type.charAt(0).toUpperCase() + type.slice(1));
  if (!log.reason) return text;
  return t('log.withReason', { type: text, reason: tOr(`log.reason.${log.reason}`, words(log.reason)) });
}

function KeyCard({ me }: { me: UserMe }) {
  const key = useLoad<MemberKeyRecord>(() => api.key(me.id), [me.id]);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  async function lost() {
    try {
      await api.reportKeyLost(me.id);
      setMessage(t('keyCard.lostDone'));
      setConfirming(false);
      key.reload();
    } catch (err) {
      setMessage(describe(err));
    }
  }
  return (
    <section aria-labelledby="key">
      <h2 id="key">{t('keyCard.title')}</h2>
      {key.error && <p class="error">{key.error}</p>}
      {!key.value && !key.error && <p>{t('keyCard.none')}</p>}
      {key.value && (
        <p>
          {t('keyCard.card', { last: key.value.token.slice(-4), type: key.value.type })}{' '}
          <strong>{key.value.state === 'active' ? t('keyCard.active') : t('keyCard.disabled')}</strong>
        </p>
      )}
      {key.value?.state === 'active' &&
        (confirming ? (
          <p>
            {t('keyCard.disableForGood')}{' '}
            <button type="button" class="danger" onClick={lost}>
              {t('keyCard.yesLost')}
            </button>{' '}
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              {t('common.no')}
            </button>
          </p>
        ) : (
          <button type="button" class="secondary" onClick={() => setConfirming(true)}>
            {t('keyCard.reportLost')}
          </button>
        ))}
      {message && <p role="status">{message}</p>}
    </section>
  );
}

function Packages({ me }: { me: UserMe }) {
  const packages = useLoad(() => api.packages(me.id), [me.id]);
  const credits = useLoad<MemberCredit[]>(() => api.credits(me.id), [me.id]);
  return (
    <section aria-labelledby="packages">
      <h2 id="packages">{t('packages.title')}</h2>
      {packages.value?.length === 0 && <p>{t('packages.none')}</p>}
      <ul class="rows">
        {(packages.value ?? []).map((p) => (
          <li key={p.id}>
            <span>{p._embedded?.package?.name ?? t('common.package', { id: p.package })}</span>
            <span>
              {p.untilDate
                ? t('packages.fromUntil', { from: dayText(p.fromDate), until: dayText(p.untilDate) })
                : t('packages.from', { from: dayText(p.fromDate) })}
            </span>
          </li>
        ))}
        {(credits.value ?? []).map((c) => (
          <li key={`c${c.id}`}>
            <span>{t('packages.credit', { scope: c.scope })}</span>
            <span>
              {t('packages.creditLeft', {
                remaining: money(c.remaining, null),
                amount: money(c.amount, null),
              })}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** My trainings and how long each stays valid (an expired one no longer unlocks its machines). */
function Trainings({ me }: { me: UserMe }) {
  const trainings = useLoad(
    () => Promise.all([api.trainings(me.id), api.courses(), api.space(me.space)]),
    [me.id],
  );
  const [list, courses, space] = trainings.value ?? [[], [], null];
  const titles = new Map(courses.map((c) => [c.id, c.title]));
  // A training ends with its day in the space, as the access policy counts it, not the phone's.
  const today = wall(new Date(), space?.timezone ?? 'UTC').date;
  const day = dayText;
  return (
    <section aria-labelledby="trainings">
      <h2 id="trainings">{t('trainings.title')}</h2>
      {trainings.value && list.length === 0 && <p>{t('trainings.none')}</p>}
      <ul class="rows">
        {list.map((tr) => (
          <li key={tr.id}>
            <span>{titles.get(tr.trainingCourse) ?? t('common.course', { id: tr.trainingCourse })}</span>
            <span class={tr.untilDate !== null && tr.untilDate < today ? 'bad' : ''}>
              {tr.untilDate === null
                ? t('trainings.noExpiry')
                : tr.untilDate < today
                  ? t('trainings.expiredOn', { day: day(tr.untilDate) })
                  : t('trainings.validUntil', { day: day(tr.untilDate) })}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** How the invoice's latest payment through Stripe stands, when it is under way or failed. */
function PaymentState({ invoice }: { invoice: number }) {
  const payments = useLoad<StripePayment[]>(() => api.stripePayments(invoice), [invoice]);
  const last = payments.value?.filter((p) => p.kind !== 'setup' && p.state !== 'expired').at(-1);
  // On a line of its own below the invoice.
  const line = { flexBasis: '100%' };
  if (last?.state === 'processing') return <small style={line}>{t('invoices.processing')}</small>;
  if (last?.state !== 'failed') return null;
  return (
    <small class="bad" style={line} data-testid="payment-failure">
      {t('invoices.failed', { reason: last.failureMessage ?? t('invoices.noReason') })}
      {last.retryAfter ? t('invoices.retry', { day: dayText(last.retryAfter) }) : ''}
    </small>
  );
}

/** A card brand as Stripe names it ("visa", "amex") as people write it. */
const brandName = (brand: string | null) =>
  brand === null
    ? t('invoices.card')
    : ({ amex: 'American Express', mastercard: 'Mastercard', unionpay: 'UnionPay', jcb: 'JCB' }[brand] ??
      brand.charAt(0).toUpperCase() + brand.slice(1));

/** What Stripe's Checkout sent the member back to say (`?stripe=`), in words. */
const checkoutReturn = (said: string): string | null =>
  ['paid', 'saved', 'cancelled'].includes(said) ? tOr(`invoices.return.${said}`, said) : null;

/**
 * My invoices (open ones to pay, past ones with their PDF), and where the space takes payments
 * online (Stripe): my prepaid balance with Top up, and my saved payment method.
 */
function Invoices({ me }: { me: UserMe }) {
  const invoices = useLoad<InvoiceRecord[]>(() => api.invoices(me.id), [me.id]);
  const online = useLoad<OnlinePayments>(() => api.onlinePayments(me.id), [me.id]);
  const enabled = online.value?.enabled === true;
  const balance = useLoad<MemberBalance | null>(
    () => (enabled ? api.balance(me.id) : Promise.resolve(null)),
    [me.id, enabled],
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [amount, setAmount] = useState('20.00');
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [message, setMessage] = useState<string | null>(() =>
    checkoutReturn(new URLSearchParams(window.location.search).get('stripe') ?? ''),
  );
  /** Opens Stripe's Checkout page (leaves the app). */
  async function checkout(what: string, start: () => Promise<CheckoutLink>) {
    setBusy(what);
    setMessage(null);
    try {
      window.location.assign((await start()).url);
    } catch (err) {
      setMessage(describe(err));
      setBusy(null);
    }
  }
  async function remove() {
    setBusy('remove');
    try {
      await api.removePaymentMethod(me.id);
      setMessage(t('invoices.removed'));
      setConfirmRemove(false);
      online.reload();
    } catch (err) {
      setMessage(describe(err));
    }
    setBusy(null);
  }
  const list = invoices.value ?? [];
  const open = list.filter((i) => i.state === 'unpaid');
  const past = list.filter((i) => i.state !== 'unpaid');
  const method = online.value?.paymentMethod ?? null;
  return (
    <section aria-labelledby="invoices">
      <h2 id="invoices">{t('invoices.title')}</h2>
      {invoices.error && <p class="error">{invoices.error}</p>}
      {invoices.value?.length === 0 && <p>{t('invoices.none')}</p>}
      {open.length > 0 && (
        <>
          <h3>{t('invoices.open')}</h3>
          <ul class="rows" data-testid="open-invoices">
            {open.map((i) => (
              <li key={i.id}>
                <span>
                  {i.number ?? `#${i.id}`} · {dayText(i.date)}
                  {i.dueDate ? ` · ${t('invoices.due', { day: dayText(i.dueDate) })}` : ''}
                </span>
                <span>
                  {t('invoices.toPay', { amount: money(i.totalPayable, i.currency) })}{' '}
                  <a href={api.invoicePdfUrl(i.id)} target="_blank" rel="noopener">
                    {t('invoices.pdf')}
                  </a>
                  {enabled && (
                    <>
                      {' '}
                      <button
                        type="button"
                        disabled={busy !== null}
                        onClick={() => checkout(`invoice${i.id}`, () => api.payInvoice(i.id))}
                      >
                        {busy === `invoice${i.id}` ? t('invoices.opening') : t('invoices.payNow')}
                      </button>
                    </>
                  )}
                </span>
                {enabled && <PaymentState invoice={i.id} />}
              </li>
            ))}
          </ul>
        </>
      )}
      {past.length > 0 && (
        <>
          <h3>{t('invoices.past')}</h3>
          <ul class="rows" data-testid="past-invoices">
            {past.map((i) => (
              <li key={i.id}>
                <span>
                  {i.number ?? `#${i.id}`} · {dayText(i.date)}
                </span>
                <span>
                  {money(i.total, i.currency)} · {tOr(`invoices.state.${i.state}`, i.state)}{' '}
                  <a href={api.invoicePdfUrl(i.id)} target="_blank" rel="noopener">
                    {t('invoices.pdf')}
                  </a>
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      {enabled && (
        <>
          <h3>{t('invoices.balance')}</h3>
          <p data-testid="balance">
            {balance.value ? money(balance.value.balance, online.value?.currency) : '…'}
          </p>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              checkout('topUp', () => api.topUp(me.id, amount.trim().replace(',', '.')));
            }}
          >
            <Field
              label={t('invoices.amount', { currency: online.value?.currency ?? '' })}
              inputMode="decimal"
              value={amount}
              set={setAmount}
              required
            />
            <button type="submit" disabled={busy !== null}>
              {busy === 'topUp' ? t('invoices.opening') : t('invoices.topUp')}
            </button>
          </form>
          <h3>{t('invoices.method')}</h3>
          <p data-testid="payment-method">
            {method
              ? method.type === 'sepa'
                ? t('invoices.sepa', { last4: method.last4 ?? '?' })
                : t('invoices.cardEnding', { brand: brandName(method.brand), last4: method.last4 ?? '?' })
              : t('invoices.noMethod')}
          </p>
          {method && <p>{t('invoices.chargedAutomatically')}</p>}
          <button
            type="button"
            class="secondary"
            disabled={busy !== null}
            onClick={() => checkout('setup', () => api.savePaymentMethod(me.id))}
          >
            {method ? t('invoices.change') : t('invoices.addMethod')}
          </button>{' '}
          {method &&
            (confirmRemove ? (
              <>
                {t('invoices.removeIt')}{' '}
                <button type="button" class="danger" disabled={busy !== null} onClick={remove}>
                  {t('invoices.yesRemove')}
                </button>{' '}
                <button type="button" class="secondary" onClick={() => setConfirmRemove(false)}>
                  {t('common.no')}
                </button>
              </>
            ) : (
              <button type="button" class="secondary" onClick={() => setConfirmRemove(true)}>
                {t('invoices.remove')}
              </button>
            ))}
        </>
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}
