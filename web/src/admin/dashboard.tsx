import type { VNode } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ApiError, ResourceStatus } from '../api';
import { dateTime, duration } from '../format';
import { type FeedEntry, useLive } from '../live';
import { adminApi, type ResourceRecord, type WebhookRecord } from './admin-api';
import { type Act, BridgeButtons, clock as time, PairingPanel, useBridgeControl } from './bridge-actions';
import { activityApi, asLiveLog } from './activity-api';
import { AgentUpdates } from './agent-updates';
import { logText } from './feed';
import { FirstRunChecklist } from './first-run';
import { PresencePanel } from './presence-panel';
import { OpenProblemReports } from './problem-reports';
import { t } from '../i18n/i18n';

/** The start page: every door and machine with its live state, alerts, and the activity feed. */
export function Dashboard() {
  const live = useLive();
  const [resources, setResources] = useState<ResourceRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [alertMinutes, setAlertMinutes] = useState(5);
  const [now, setNow] = useState(Date.now());
  const { notice, pairing, closePairing, act, pair } = useBridgeControl();
  const [failingHooks, setFailingHooks] = useState<WebhookRecord[]>([]);
  // The feed opens with the newest 50 logs; the live channel adds what happens from then on.
  const [earlier, setEarlier] = useState<FeedEntry[]>([]);

  const load = () =>
    adminApi
      .resources()
      .then(setResources)
      .catch((e: ApiError) => setError(e.message));
  useEffect(() => {
    void load();
    // Webhook delivery state changes slowly (retries take minutes): asked once a minute.
    const hooks = () =>
      adminApi
        .webhooks()
        .then((all) => setFailingHooks(all.filter((h) => h.state === 'failing' || h.failingSince !== null)))
        .catch(() => {});
    void hooks();
    activityApi
      .recent(50)
      .then((logs) =>
        setEarlier(logs.map((l) => ({ kind: 'log', key: `l${l.id}`, at: l.createdAt, log: asLiveLog(l) }))),
      )
      .catch(() => {});
    const t = setInterval(() => setNow(Date.now()), 5000);
    const h = setInterval(hooks, 60_000);
    return () => {
      clearInterval(t);
      clearInterval(h);
    };
  }, []);

  // A card whose resource and live state are the objects of the last render keeps its element,
  // which Preact then skips: a change redraws its own card, not all 1,000.
  const cards = useRef(new Map<number, { r: ResourceRecord; s: ResourceStatus | undefined; card: VNode }>());
  const card = (r: ResourceRecord) => {
    const s = live.statuses.get(r.id);
    const last = cards.current.get(r.id);
    if (last && last.r === r && last.s === s) return last.card;
    const fresh = <ResourceCard key={r.id} r={r} s={s} act={act} pair={pair} />;
    cards.current.set(r.id, { r, s, card: fresh });
    return fresh;
  };

  const names = useMemo(() => new Map((resources ?? []).map((r) => [r.id, r.name])), [resources]);
  const feed = useMemo(() => {
    const liveKeys = new Set(live.feed.map((e) => e.key));
    return [...live.feed, ...earlier.filter((e) => !liveKeys.has(e.key))];
  }, [live.feed, earlier]);
  // The same for the feed's entries: a new entry is drawn, the 199 before it are kept.
  const entries = useRef(new Map<string, { source: FeedEntry; names: Map<number, string>; entry: VNode }>());
  const feedEntry = (e: FeedEntry) => {
    const last = entries.current.get(e.key);
    // The live channel's copy of a log that the feed opened with replaces it (it names the card).
    if (last && last.source === e && last.names === names) return last.entry;
    const entry = (
      <li key={e.key} class={e.kind === 'log' && e.log.type === 'denied' ? 'bad' : ''}>
        <time dateTime={e.at}>{time(e.at)}</time>{' '}
        <strong>
          {names.get(e.kind === 'log' ? e.log.resource : e.resource) ?? t('admin.log_table.resource')}
        </strong>{' '}
        {e.kind === 'bridge'
          ? e.online
            ? t('admin.dashboard.bridgeOnline')
            : t('admin.dashboard.bridgeOffline')
          : logText(e.log)}
        {e.kind === 'log' && e.log.offline && (
          <span class="badge late"> {t('admin.dashboard.offlineDecisionReportedLate')}</span>
        )}
      </li>
    );
    entries.current.set(e.key, { source: e, names, entry });
    // Entries that left the feed (it keeps the newest 200) are forgotten.
    if (entries.current.size > 2 * feed.length + 50) {
      const keep = new Set(feed.map((f) => f.key));
      for (const key of entries.current.keys()) if (!keep.has(key)) entries.current.delete(key);
    }
    return entry;
  };
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (resources ?? []).filter((r) => !f || r.name.toLowerCase().includes(f));
  }, [resources, filter]);

  const offlineAlerts = (resources ?? []).flatMap((r) => {
    const s = live.statuses.get(r.id);
    if (!s?.bridge || s.online) return [];
    const since = s.lastSeenAt ? Date.parse(s.lastSeenAt) : null;
    if (since !== null && now - since < alertMinutes * 60_000) return [];
    return [{ r, since }];
  });

  const duplicateAlerts = (resources ?? []).filter((r) => live.statuses.get(r.id)?.duplicateDeviceAt);
  // Door contacts that report their door held open (the agent's heldOpenSeconds passed).
  const heldOpenAlerts = (resources ?? []).flatMap((r) =>
    (live.statuses.get(r.id)?.inputs ?? []).filter((i) => i.heldOpen).map((input) => ({ r, input })),
  );

  return (
    <main class="admin">
      <h1>{t('admin.dashboard.dashboard')}</h1>
      <FirstRunChecklist />
      <PresencePanel />
      {error && <p class="error">{error}</p>}
      <section aria-labelledby="alerts-h">
        <h2 id="alerts-h">{t('admin.dashboard.alerts')}</h2>
        <label class="inline">
          {t('admin.dashboard.alertAfter')}{' '}
          <input
            type="number"
            min={0}
            max={1440}
            value={alertMinutes}
            onInput={(e) => setAlertMinutes(Number((e.target as HTMLInputElement).value) || 0)}
          />
        </label>
        <ul aria-label={t('admin.dashboard.alerts')} class="rows">
          {offlineAlerts.length === 0 &&
            failingHooks.length === 0 &&
            duplicateAlerts.length === 0 &&
            heldOpenAlerts.length === 0 && <li class="muted">{t('admin.dashboard.noAlerts')}</li>}
          {heldOpenAlerts.map(({ r, input }) => (
            <li key={`h${r.id}-${input.name}`} class="bad">
              {t('admin.dashboard.heldOpen', {
                name: r.name,
                input: input.label,
                since: dateTime(input.since),
              })}
            </li>
          ))}
          {duplicateAlerts.map((r) => (
            <li key={`d${r.id}`} class="bad">
              {t('admin.dashboard.duplicate', { name: r.name })}
            </li>
          ))}
          {failingHooks.map((h) => (
            <li key={`w${h.id}`} class="bad">
              {t('admin.dashboard.webhookFailing', { name: h.label ?? h.url })}
              {h.failingSince ? t('admin.dashboard.failingSince', { since: dateTime(h.failingSince) }) : ''}
            </li>
          ))}
          {offlineAlerts.map(({ r, since }) => (
            <li key={r.id} class="bad">
              {t('admin.dashboard.bridgeOfflineAlert', { name: r.name })}
              {since !== null
                ? t('admin.dashboard.offlineFor', {
                    duration: duration((now - since) / 1000),
                    seen: dateTime(new Date(since).toISOString()),
                  })
                : ''}
            </li>
          ))}
        </ul>
      </section>
      <OpenProblemReports onResolved={load} />
      <AgentUpdates />
      {notice && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      {pairing && (
        <PairingPanel pairing={pairing} name={names.get(pairing.resource) ?? ''} onClose={closePairing} />
      )}
      <div class="admin-grid">
        <section aria-labelledby="res-h">
          <h2 id="res-h">{t('admin.dashboard.doorsAndMachines')}</h2>
          <input
            type="search"
            aria-label={t('admin.dashboard.findADoorOr')}
            placeholder={t('admin.dashboard.findADoorOr')}
            value={filter}
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
          {resources === null && !error && <p role="status">{t('admin.dashboard.loading')}</p>}
          <ul class="cards">{shown.map(card)}</ul>
        </section>
        <section aria-labelledby="feed-h">
          <h2 id="feed-h">{t('admin.dashboard.activity')}</h2>
          <p>
            <a href="/admin/activity">{t('admin.dashboard.allActivityWithFilters')}</a>
          </p>
          <ol aria-label={t('admin.dashboard.activityFeed')} class="rows feed">
            {feed.length === 0 && <li class="muted">{t('admin.dashboard.nothingYetTapsAnd')}</li>}
            {feed.map(feedEntry)}
          </ol>
        </section>
      </div>
    </main>
  );
}

function ResourceCard(props: {
  r: ResourceRecord;
  s: ResourceStatus | undefined;
  act: Act;
  pair: (r: ResourceRecord) => void;
}) {
  const { r, s } = props;
  const state = !s?.bridge ? 'no bridge' : s.online ? 'online' : 'offline';
  return (
    <li class={`card ${state.replace(/ /g, '-')}`} aria-label={r.name}>
      <div class="card-head">
        <strong>{r.name}</strong>
        <span class={`badge ${state.replace(/ /g, '-')}`} data-testid="bridge-state">
          {state === 'online'
            ? t('admin.dashboard.online')
            : state === 'offline'
              ? t('admin.dashboard.offline')
              : t('admin.dashboard.noBridge')}
        </span>
      </div>
      {s?.bridge && (
        <dl class="facts">
          <dt>{t('admin.dashboard.lastHeartbeat')}</dt>
          <dd>{s.lastSeenAt ? dateTime(s.lastSeenAt) : t('admin.dashboard.never')}</dd>
          <dt>{t('admin.dashboard.agent')}</dt>
          <dd>{s.agentVersion ?? t('admin.dashboard.unknown')}</dd>
          <dt>{t('admin.dashboard.relay')}</dt>
          <dd>
            {s.relay === 'on'
              ? t('admin.dashboard.onSince', { since: s.relaySince ? dateTime(s.relaySince) : '?' })
              : t('admin.dashboard.off')}
          </dd>
          {s.duplicateDeviceAt && (
            <>
              <dt>{t('admin.dashboard.warning')}</dt>
              <dd>
                {t('admin.dashboard.twoDevices', {
                  addresses: s.duplicateDeviceAddresses.join(t('admin.dashboard.and')),
                  seen: dateTime(s.duplicateDeviceAt),
                })}
              </dd>
            </>
          )}
          {(s.inputs ?? []).length > 0 && (
            <>
              <dt>{t('admin.dashboard.inputs')}</dt>
              <dd data-testid="inputs">{(s.inputs ?? []).map(inputText).join('; ')}</dd>
            </>
          )}
          {s.idleWarning && (
            <>
              <dt>{t('admin.dashboard.idle')}</dt>
              <dd>{t('admin.dashboard.idleSwitchOff', { time: dateTime(s.idleWarning.cutAt) })}</dd>
            </>
          )}
          {s.session && (
            <>
              <dt>{t('admin.dashboard.inUseBy')}</dt>
              <dd>
                {s.session.member
                  ? `${s.session.member.firstName} ${s.session.member.lastName}`.trim()
                  : t('admin.dashboard.aMember')}{' '}
                {t('admin.presence_panel.since', { since: dateTime(s.session.since) })}
              </dd>
            </>
          )}
        </dl>
      )}
      <BridgeButtons r={r} s={s} act={props.act} pair={props.pair} />
    </li>
  );
}

/** An input's state in words: "Lid: open", "busy: working", "Front door: held open". */
function inputText(input: ResourceStatus['inputs'][number]): string {
  type State = 'idle' | 'working' | 'open' | 'closed' | 'released' | 'pressed';
  const words: Record<typeof input.kind, [State, State]> = {
    busy: ['idle', 'working'],
    interlock: ['open', 'closed'],
    doorContact: ['closed', 'open'],
    exitButton: ['released', 'pressed'],
  };
  const [inactive, active] = words[input.kind];
  const state = input.heldOpen
    ? 'heldOpen'
    : input.active === null
      ? 'unknown'
      : input.active
        ? active
        : inactive;
  return t('admin.dashboard.inputLine', {
    label: input.label,
    state: t(`admin.dashboard.inputState.${state}`),
  });
}
