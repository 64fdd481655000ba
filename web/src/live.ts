import { useEffect, useState } from 'preact/hooks';
import {
  type LiveLog,
  type LiveMessage,
  notifySignedOut,
  type ResourceStatus,
  type ResourceStatusField,
} from './api';
import { MEMBER_STATUS_FIELDS } from './live-fields';

/**
 * The live channel (GET /api/v1/live?format=changes, Server-Sent Events): one per browser tab,
 * shared by every component. It starts with a snapshot and then applies each batch of changes,
 * which carries only the fields that changed.
 */
/** What the admins' feed shows: resource logs (sent to admins only) and bridges going on- or offline. */
export type FeedEntry =
  | { kind: 'log'; key: string; at: string; log: LiveLog }
  | { kind: 'bridge'; key: string; at: string; resource: number; online: boolean };

type State = {
  connected: boolean;
  statuses: Map<number, ResourceStatus>;
  signedOut: string | null;
  /** Newest first, at most FEED_SIZE. */
  feed: FeedEntry[];
};

const FEED_SIZE = 200;
let state: State = { connected: false, statuses: new Map(), signedOut: null, feed: [] };
let bridgeEvents = 0;

function addToFeed(entries: FeedEntry[]): void {
  if (entries.length) set({ feed: [...entries.reverse(), ...state.feed].slice(0, FEED_SIZE) });
}
let source: EventSource | null = null;
/** The resources followed: a machine page follows its own, other pages every one (null). */
let scope: number[] | null = null;

/** The fields of a status the channel asks for (MEMBER_STATUS_FIELDS on members' pages); null: every one. */
let fields: readonly ResourceStatusField[] | null = MEMBER_STATUS_FIELDS;
const listeners = new Set<() => void>();

function set(next: Partial<State>): void {
  state = { ...state, ...next };
  notify();
}

let notifying = false;

/**
 * Pages hear of changes once per frame: a batch of changes arrives as many events, and a page
 * of 1,000 resources redrawn per event would fall behind. (A hidden tab gets no frames: there a
 * timer does.)
 */
function notify(): void {
  if (notifying) return;
  notifying = true;
  const run = () => {
    notifying = false;
    for (const listener of listeners) listener();
  };
  if (typeof requestAnimationFrame === 'function' && !document.hidden) requestAnimationFrame(run);
  else setTimeout(run, 50);
}

/**
 * Follows only `resources` (or all when null), and asks for only `shown` of each status (or every
 * field when null); reconnects when that changes.
 */
export function setLiveScope(resources: number[] | null, shown: readonly ResourceStatusField[] | null): void {
  const same =
    JSON.stringify(resources) === JSON.stringify(scope) && JSON.stringify(shown) === JSON.stringify(fields);
  scope = resources;
  fields = shown;
  if (!same && source) {
    stopLive();
    startLive();
  }
}

export function startLive(): void {
  if (source) return;
  const query = [
    ...(scope ?? []).map((id) => `&resource=${id}`),
    ...(fields ?? []).map((field) => `&field=${field}`),
  ].join('');
  source = new EventSource(`/api/v1/live?format=changes${query}`);
  source.onopen = () => set({ connected: true });
  source.onerror = () => set({ connected: false });
  const on = (type: LiveMessage['type'], handle: (message: any) => void) =>
    source?.addEventListener(type, (event) => handle(JSON.parse((event as MessageEvent).data)));
  on('snapshot', (m: Extract<LiveMessage, { type: 'snapshot' }>) =>
    set({ connected: true, statuses: new Map(m.resources.map((s) => [s.resource, s])) }),
  );
  on('changes', (m: Extract<LiveMessage, { type: 'changes' }>) => {
    // Each change holds the fields that changed (a whole status for a resource not yet held).
    const statuses = new Map(state.statuses);
    const feed: FeedEntry[] = [];
    const at = new Date().toISOString();
    for (const change of m.changes) {
      const before = statuses.get(change.resource);
      const status = { ...before, ...change } as ResourceStatus;
      statuses.set(change.resource, status);
      if (before?.bridge && status.bridge && before.online !== status.online)
        feed.push({
          kind: 'bridge',
          key: `b${++bridgeEvents}`,
          at,
          resource: status.resource,
          online: status.online,
        });
    }
    set({ statuses });
    addToFeed(feed);
  });
  on('log', (m: Extract<LiveMessage, { type: 'log' }>) =>
    addToFeed([{ kind: 'log', key: `l${m.log.id}`, at: m.log.createdAt, log: m.log }]),
  );
  on('resourceRemoved', (m: Extract<LiveMessage, { type: 'resourceRemoved' }>) => {
    const statuses = new Map(state.statuses);
    statuses.delete(m.resource);
    set({ statuses });
  });
  on('signedOut', (m: Extract<LiveMessage, { type: 'signedOut' }>) => {
    stopLive();
    set({ signedOut: m.reason });
    notifySignedOut();
  });
}

export function stopLive(): void {
  source?.close();
  source = null;
  set({ connected: false });
}

export function useLive(): State {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((n) => n + 1);
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return state;
}
