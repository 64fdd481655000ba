import { useEffect, useRef, useState } from 'preact/hooks';
import { type AccessCheck, ApiError, api, type ResourceStatus } from '../api';
import { duration, elapsed, timeIn, verdictText } from '../format';
import { useLive } from '../live';
import { TrainSomeone } from './train-someone';
import { useAuth } from '../session';
import { loadPriceFacts, percent, type PriceFacts } from './machine-prices';
import { ReportProblem } from './problem-report';
import { dayText, locale, t } from '../i18n/i18n';

type Outcome = { kind: 'success' | 'error'; text: string } | null;

/** How the resource is now, in a few words. */
function stateText(
  status: ResourceStatus,
  noun: string,
  zone: string | null,
): { text: string; tone: string } {
  if (!status.bridge) return { text: t('machine.state.notConnected'), tone: 'muted' };
  if (!status.online) return { text: t('machine.state.offline'), tone: 'bad' };
  if (status.session?.mine)
    return {
      text: t('machine.state.inUseByYouSince', {
        time: new Date(status.session.since).toLocaleTimeString(locale(), {
          hour: '2-digit',
          minute: '2-digit',
          ...(zone ? { timeZone: zone } : {}),
        }),
      }),
      tone: 'mine',
    };
  if (status.session) return { text: t('machine.state.inUse'), tone: 'busy' };
  if (status.relay === 'on')
    return { text: noun === 'door' ? t('machine.state.open') : t('machine.state.on'), tone: 'busy' };
  return { text: t('machine.state.free'), tone: 'good' };
}

/**
 * The page a QR sticker opens (`/r/{id}?c={code}`): the resource, its live state, the policy's
 * verdict before anything is pressed, and one large button.
 */
export function MachinePage({ id, code: stickerCode }: { id: number; code: string | null }) {
  const live = useLive();
  const [check, setCheck] = useState<AccessCheck | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [typedCode, setTypedCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [lockedUntil, setLockedUntil] = useState<number | null>(null);
  const [now, setNow] = useState(Date.now());
  const code = stickerCode ?? (typedCode.trim() || null);
  const auth = useAuth();
  const memberId = auth.state === 'signedIn' ? auth.me.id : null;
  const [prices, setPrices] = useState<PriceFacts | null>(null);
  const zone = check?.timezone ?? null;
  // What using it costs, read once the page knows the space's zone (the member's packages of today).
  useEffect(() => {
    if (memberId === null || zone === null) return;
    let current = true;
    loadPriceFacts(id, memberId, zone)
      .then((facts) => current && setPrices(facts))
      .catch(() => current && setPrices(null));
    return () => {
      current = false;
    };
  }, [id, memberId, zone]);

  const load = () =>
    api
      .accessCheck(id, stickerCode ?? undefined)
      .then((c) => {
        setCheck(c);
        setLoadError(null);
        if (c.reason === 'tooManyAttempts' && c.retryAfter) setLockedUntil(Date.now() + c.retryAfter * 1000);
      })
      .catch((err) => setLoadError(err instanceof ApiError ? err.message : t('common.unreachable')));

  // The verdict follows the live state (bridge, sessions) and the clock (opening hours, bookings).
  const liveStatus = live.statuses.get(id);
  // An interlock that opens or closes changes the verdict too.
  const interlocks = (liveStatus?.inputs ?? [])
    .filter((i) => i.kind === 'interlock')
    .map((i) => `${i.name}=${i.active}`)
    .join(',');
  const liveKey = liveStatus
    ? `${liveStatus.online}:${liveStatus.relay}:${liveStatus.session?.id ?? ''}:${interlocks}`
    : '';
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      void load();
      return;
    }
    const t = setTimeout(() => void load(), 150);
    return () => clearTimeout(t);
  }, [id, stickerCode, liveKey]);
  useEffect(() => {
    const t = setInterval(() => void load(), 30_000);
    return () => clearInterval(t);
  }, [id, stickerCode]);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);

  // A machine switched on from this page runs until switched off: the page shows only Switch
  // off from the answer on, before the live channel tells of the session, and until it ends.
  const [justOn, setJustOn] = useState(false);
  const sawMine = useRef(false);
  const mineId = liveStatus?.session?.mine ? liveStatus.session.id : null;
  useEffect(() => {
    if (mineId !== null) sawMine.current = true;
    else if (sawMine.current) {
      sawMine.current = false;
      setJustOn(false);
    }
  }, [mineId]);

  // A door's "Unlocked" notice lasts while it is open: it ends when the relay drops back (the
  // door relocks), or after a minute when no live state says so.
  const [unlocking, setUnlocking] = useState(false);
  const sawOpen = useRef(false);
  const relay = liveStatus?.relay;
  useEffect(() => {
    if (!unlocking) return;
    if (relay === 'on') sawOpen.current = true;
    else if (sawOpen.current) {
      sawOpen.current = false;
      setUnlocking(false);
      setOutcome((o) => (o?.kind === 'success' ? null : o));
    }
  }, [relay, unlocking]);
  useEffect(() => {
    if (!unlocking) return;
    const t = setTimeout(() => {
      setUnlocking(false);
      setOutcome((o) => (o?.kind === 'success' ? null : o));
    }, 60_000);
    return () => clearTimeout(t);
  }, [unlocking]);

  if (loadError && !check) {
    return (
      <main>
        <h1>{t('machine.title', { id })}</h1>
        <p class="error" role="alert">
          {loadError}
        </p>
      </main>
    );
  }
  if (!check) {
    return (
      <main>
        <p role="status">{t('common.loading')}</p>
      </main>
    );
  }

  const status = liveStatus ?? check.status;
  const door = check.resource.controlType === 'door';
  const noun = door ? ('door' as const) : ('machine' as const);
  const state = stateText(status, noun, zone);
  const retryLeft = lockedUntil ? Math.max(0, Math.ceil((lockedUntil - now) / 1000)) : null;
  const locked = retryLeft !== null && retryLeft > 0;
  const mySession = status.session?.mine ? status.session : null;
  const running = !door && (mySession !== null || justOn);
  const verdict = locked
    ? { ...check, allowed: false, reason: 'tooManyAttempts' as const }
    : retryLeft === 0 && check.reason === 'tooManyAttempts'
      ? { ...check, allowed: true, reason: null }
      : check;
  const allowed = verdict.allowed && status.online;
  const canPress = allowed && !busy && !!code && !running;

  async function press() {
    if (!code) return;
    setBusy(true);
    setOutcome(null);
    if (door) {
      sawOpen.current = false;
      setUnlocking(true);
    }
    try {
      const result = await api.switchOn(id, code);
      if (!door) setJustOn(true);
      setOutcome({
        kind: 'success',
        text: door
          ? t('machine.unlocked')
          : `${t('machine.switchedOn')}${result.maxDuration ? t('machine.sessionMay', { duration: duration(result.maxDuration) }) : ''}`,
      });
    } catch (err) {
      if (err instanceof ApiError) {
        if (err.status === 429 && err.retryAfter) setLockedUntil(Date.now() + err.retryAfter * 1000);
        const reason = err.data.reason as string | undefined;
        const text =
          reason === 'wrongCode'
            ? t('machine.wrongCode')
            : reason === 'staleCode'
              ? t('verdict.staleCode')
              : reason && reason !== 'tooManyAttempts'
                ? verdictText(
                    {
                      ...check!,
                      reason: reason as any,
                      until: err.data.until ?? null,
                      trainingCourses: err.data.details?.trainingCourses ?? check!.trainingCourses,
                    },
                    noun,
                    null,
                  )
                : err.message;
        // Locked out: the verdict counts down the wait; saying it twice would not help.
        setOutcome(reason === 'tooManyAttempts' ? null : { kind: 'error', text });
      } else setOutcome({ kind: 'error', text: t('common.unreachable') });
      setUnlocking(false);
      void load();
    } finally {
      setBusy(false);
    }
  }

  async function switchOff() {
    setBusy(true);
    setOutcome(null);
    try {
      await api.switchOff(id);
      setJustOn(false);
      setOutcome({ kind: 'success', text: t('machine.switchedOff') });
    } catch (err) {
      setOutcome({
        kind: 'error',
        text: err instanceof ApiError ? err.message : t('common.unreachable'),
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="machine">
      <header class="machine-head">
        <p class="kind">{check.resource.type?.name ?? (door ? t('machine.door') : t('machine.machine'))}</p>
        <h1>{check.resource.displayTitle || check.resource.name}</h1>
        <p class={`badge ${state.tone}`} aria-live="polite">
          {state.text}
        </p>
      </header>

      <section
        aria-label={t('machine.verdict')}
        hidden={running}
        class={`verdict ${allowed && verdict.reason === null ? 'ok' : 'no'}`}
      >
        <p aria-live="polite" data-testid="verdict">
          {verdict.reason === null && !status.online
            ? verdictText({ ...check, reason: status.bridge ? 'bridgeOffline' : 'noBridge' }, noun, retryLeft)
            : verdictText(verdict, noun, retryLeft)}
        </p>
        {verdict.reason === 'inactive' && check.resource.lockReason && (
          <p class="lock-reason" data-testid="lock-reason">
            {check.resource.lockReason}
          </p>
        )}
      </section>

      {check.resource.safetyMessage && !running && (
        <section aria-label={t('machine.safety')} class="safety">
          <h2>{t('machine.beforeSwitchOn')}</h2>
          <p>{check.resource.safetyMessage}</p>
        </section>
      )}

      {prices && !running && (!door || prices.prices.length > 0) && (
        <section aria-label={t('machine.price')} class="prices">
          <h2>{t('machine.price')}</h2>
          {prices.prices.length === 0 ? (
            <p>{t('machine.free')}</p>
          ) : (
            <ul>
              {prices.prices.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          )}
          {prices.discount && (
            <p>
              {t('machine.discount', {
                name: prices.discount.packageName,
                percent: percent(prices.discount.percent),
              })}
            </p>
          )}
          {prices.credit && (
            <p>
              {prices.credit.untilDate
                ? t('machine.creditsPayUntil', {
                    remaining: prices.credit.remaining,
                    until: dayText(prices.credit.untilDate),
                  })
                : t('machine.creditsPay', { remaining: prices.credit.remaining })}
            </p>
          )}
        </section>
      )}

      {running ? (
        <section aria-label={t('machine.yourSession')} class="session">
          <p>
            {mySession ? (
              <>
                {t('machine.runningFor')}{' '}
                <time dateTime={mySession.since} data-testid="elapsed">
                  {elapsed(mySession.since, now)}
                </time>
                {check.maxDuration
                  ? t('machine.untilAbout', {
                      time: timeIn(
                        new Date(Date.parse(mySession.since) + check.maxDuration * 1000).toISOString(),
                        check.timezone,
                      ),
                    })
                  : ''}
              </>
            ) : (
              t('machine.running')
            )}
          </p>
          {status.idleWarning && (
            <p class="idle-warning" role="alert" data-testid="idle-warning">
              {t('machine.idleWarning', {
                seconds: Math.max(0, Math.ceil((Date.parse(status.idleWarning.cutAt) - now) / 1000)),
              })}
            </p>
          )}
          <button type="button" class="big danger" onClick={switchOff} disabled={busy}>
            {t('machine.switchOff')}
          </button>
        </section>
      ) : (
        <section aria-label={t('machine.switchOn')} class="act">
          {!stickerCode && (
            <label>
              {t('machine.codeOnMachine')}
              <input
                name="code"
                autoComplete="off"
                autoCapitalize="characters"
                spellcheck={false}
                value={typedCode}
                onInput={(e) => setTypedCode((e.target as HTMLInputElement).value)}
              />
            </label>
          )}
          <button type="button" class="big primary" onClick={press} disabled={!canPress} aria-busy={busy}>
            {busy
              ? door
                ? t('machine.unlocking')
                : t('machine.switchingOn')
              : door
                ? t('machine.unlock')
                : t('machine.switchOn')}
          </button>
        </section>
      )}

      {outcome && (
        <p class={`outcome ${outcome.kind}`} role={outcome.kind === 'error' ? 'alert' : 'status'}>
          {outcome.text}
        </p>
      )}
      {!running && <TrainSomeone resource={id} />}
      {!running && (
        <ReportProblem
          resourceId={id}
          typeId={check.resource.type?.id ?? null}
          noun={noun}
          onReported={load}
        />
      )}
      <p class="back">
        <a href="/">{t('machine.allMine')}</a>
      </p>
    </main>
  );
}
