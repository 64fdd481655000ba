import type { ServerResponse } from 'node:http';
import type { LiveMessage, ResourceChange, ResourceStatus, ResourceStatusField } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import {
  readStatuses,
  readVisibleStatuses,
  type StatusRow,
  seesStatus,
  statusFor,
  type Viewer,
} from '../resources/status.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { type LiveLogRow, liveLog, logsAfter, newestLogId } from './live-logs.js';
import { LiveWriter } from './live-writer.js';

interface LiveClient {
  caller: Caller;
  view: LiveView;
  out: ServerResponse;
  /** Is the caller's credential still good? Asked at every keep-alive. */
  stillValid: () => Promise<boolean>;
  /** Its snapshot is written: a flush that reads after this may settle it (see `fresh`). */
  snapshotSent: boolean;
  /** Its id in the writer process, which holds its socket (see LiveWriter); null: the hub writes it. */
  remote: number | null;
  /** It has ended: nothing is written to it any more. */
  ended: boolean;
}

/** `full`: a `resource` event per changed resource; `changes`: one `changes` event per batch, only what changed. */
export type LiveFormat = 'full' | 'changes';

/**
 * The views that see the same but for the sessions that are their member's own (the same
 * account, role, followed resources, format and fields): a thousand members' home pages are one
 * family. Each flush builds its message once for the whole family, as the bytes that go on the
 * wire, and only a view whose member's own session is among the changes gets a message of its
 * own.
 */
interface LiveFamily {
  key: string;
  /** The family's viewer: its member id (0) is nobody's, so no session is its own. */
  viewer: Viewer;
  /** Only these resources (a machine page follows one); null: every resource the caller sees. */
  only: Set<number> | null;
  format: LiveFormat;
  /** Only these fields of each status (and `resource`); null: all of them. */
  fields: readonly ResourceStatusField[] | null;
  views: Set<LiveView>;
  /** Resources its streams were told about (so a deleted one can be taken off their screens). */
  known: Set<number>;
  /**
   * The state of each resource as the last flush sent it to the family (no session its own),
   * which every stream of its views not in `fresh` holds, but for those in its view's `own`: a
   * change is sent as what differs from it (`changes`: those fields).
   */
  sent: Map<number, ResourceStatus>;
}

/** The streams of one caller that see the same (the same member, and the same family). */
interface LiveView {
  key: string;
  viewer: Viewer;
  family: LiveFamily;
  clients: Set<LiveClient>;
  /**
   * Resources whose state its streams hold as only its member sees it (the member's own
   * session), as last sent; for the others they hold the family's `sent`.
   */
  own: Map<number, ResourceStatus>;
  /** Streams whose snapshot may be newer than `sent`: the next flush sends them whole states. */
  fresh: Set<LiveClient>;
}

/**
 * How long a batch of socket writes (or keep-alive checks) may hold the event loop before it
 * gives a turn to whatever else is waiting, in ms. A switch-on crosses several turns (request,
 * commit, command to the bridge, its reply, the answer) and may wait for one slice at each: at
 * 0.1 ms (about 8 writes on loopback) a flush to 1,000 streams adds at most about half a
 * millisecond to a switch-on that arrives during it.
 */
const SLICE_MS = 0.1;

/**
 * How long one flush's writes may wait, in all, for moments without API requests in flight (ms).
 * Live changes are batched every 250-1000 ms anyway; past this a flush goes on in slices even
 * under constant load.
 */
const MAX_YIELD_MS = 50;

/**
 * Gives the event loop a turn once the current slice has used its time; call in a loop. While
 * API requests are in flight it waits for the moment none is (`idle`, which answers how long it
 * waited), up to MAX_YIELD_MS per flush, so a switch-on that arrives during a flush meets at most
 * one slice of it.
 */
function slicer(
  busy: () => boolean,
  idle: (maxMs: number) => Promise<number>,
): () => Promise<void> | undefined {
  let started = performance.now();
  let waited = 0;
  const pause = async () => {
    await new Promise(setImmediate);
    if (waited < MAX_YIELD_MS && busy()) waited += await idle(MAX_YIELD_MS - waited);
    started = performance.now();
  };
  return () => {
    const sliceLeft = performance.now() - started < SLICE_MS;
    if (sliceLeft && (waited >= MAX_YIELD_MS || !busy())) return undefined;
    return pause();
  };
}

/** A slow reader that has this much unread is cut off (its browser reconnects and gets a snapshot). */
const MAX_BUFFERED = 1024 * 1024;

/**
 * One pace's pending changes, and the stored state of each resource as its last flush read it: a
 * change signal whose state reads the same as last time (a door's switch-on that leaves its relay
 * and session as they were) is sent to nobody.
 */
function newPace() {
  return {
    changed: new Set<number>(),
    timer: null as NodeJS.Timeout | null,
    lastRows: new Map<number, string>(),
  };
}

/**
 * How soon a view hears of a change:
 * - `narrow`: a machine page's chosen resources (the member stands at it, waiting for it);
 * - `wide`: every resource, for an admin (the dashboard shows each event within 1 s);
 * - `overview`: every resource, for a member (the home page's list of what they may use).
 * A stream that follows everything is written to at every flush of a busy space, so its pace
 * sets the number of socket writes: the members' overview, the most numerous such stream, is
 * gathered longest.
 */
type Pace = 'narrow' | 'wide' | 'overview';

function paceOf(family: Pick<LiveFamily, 'only' | 'viewer'>): Pace {
  if (family.only !== null) return 'narrow';
  return family.viewer.admin ? 'wide' : 'overview';
}

const PACES: readonly Pace[] = ['narrow', 'wide', 'overview'];

function frame(message: LiveMessage): string {
  return `event: ${message.type}\ndata: ${JSON.stringify(message)}\n\n`;
}

const CRLF = Buffer.from('\r\n');

/**
 * Bytes for many streams: the text, and the same as one HTTP/1.1 chunk (length, text, CRLF),
 * framed once and written as it is to the socket of every stream that uses chunked encoding
 * (all but HTTP/1.0 clients), instead of being framed again by each response.
 */
interface Wire {
  text: Buffer;
  chunk: Buffer;
}

function wire(text: string | Buffer): Wire {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  return {
    text: bytes,
    chunk: Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, CRLF]),
  };
}

const KEEP_ALIVE = wire(': keep-alive\n\n');

/** The status as `viewer`'s streams get it: only the fields they asked for (null: all). */
function shape(
  viewer: Viewer,
  fields: readonly ResourceStatusField[] | null,
  row: StatusRow,
): ResourceStatus {
  const status = statusFor(viewer, row);
  if (fields === null) return status;
  const shown: Record<string, unknown> = { resource: status.resource };
  for (const field of fields) shown[field] = status[field];
  return shown as ResourceStatus;
}

/** Does a change (from changedFields) hold more than the resource's id? */
const hasChange = (change: ResourceChange) => Object.keys(change).length > 1;

/** The resource and the fields of `after` that differ from `before`. */
function changedFields(before: ResourceStatus, after: ResourceStatus): ResourceChange {
  const change: Record<string, unknown> = { resource: after.resource };
  for (const [field, value] of Object.entries(after)) {
    const was = (before as Record<string, unknown>)[field];
    if (value === was) continue;
    if (typeof value === 'object' && value !== null && JSON.stringify(value) === JSON.stringify(was))
      continue;
    change[field] = value;
  }
  return change as ResourceChange;
}

/**
 * The live channel (DESIGN 11): one Server-Sent Events stream per browser that first sends the
 * state of every resource the caller sees, then each change. Changes are gathered for a short
 * moment and sent as one write per client, so a busy space costs one status query and a bounded
 * number of writes per interval, however many switch-ons happen meanwhile.
 */
export class LiveChannel {
  private readonly clients = new Set<LiveClient>();
  /** The views of the open streams, by key; a view goes when its last stream closes. */
  private readonly views = new Map<string, LiveView>();
  /** The views' families, by key; a family goes when its last view does. */
  private readonly families = new Map<string, LiveFamily>();
  /**
   * Three paces (see `paceOf`): streams that follow chosen resources (a machine page) hear of a
   * change within `batchMs`; admins' streams that follow everything (dashboards) within
   * `wideBatchMs`; members' streams that follow everything (home pages) within
   * `overviewBatchMs`. The longer paces gather a busy space's many changes into far fewer,
   * latest-state-only writes.
   */
  private readonly paces: Record<Pace, ReturnType<typeof newPace>> = {
    narrow: newPace(),
    wide: newPace(),
    overview: newPace(),
  };
  /** How many views each pace has. */
  private readonly viewCount: Record<Pace, number> = { narrow: 0, wide: 0, overview: 0 };
  private readonly keepAlive: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  /** Streams whose sockets the writer process holds, by their id there. */
  private readonly remote = new Map<number, LiveClient>();
  /** Writes the streams whose sockets it could take (see LiveWriter); the hub writes the rest. */
  private readonly writer: LiveWriter;
  /** The admins' feed: logs after this id are sent next (null until an admin listens). */
  private logCursor: number | null = null;
  private logTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: HubContext,
    private readonly options = {
      batchMs: 250,
      wideBatchMs: 500,
      overviewBatchMs: 1000,
      keepAliveMs: 25_000,
      logPollMs: 250,
    },
  ) {
    this.writer = new LiveWriter(ctx.logger, (ids) => this.remoteClosed(ids), MAX_BUFFERED);
    this.unsubscribe = ctx.signals.onChange((id) => this.resourceChanged(id));
    this.keepAlive = setInterval(() => void this.ping(), options.keepAliveMs);
    this.keepAlive.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** API requests being answered now (not the live streams themselves): flushes give way to them. */
  private requestsInFlight = 0;

  /** Flushes waiting for a moment without API requests: called when the last one closes. */
  private readonly idleWaiters = new Set<() => void>();

  /**
   * Waits until no API request is in flight, for `maxMs` at most; answers how long it waited
   * (ms). Woken by the last request's close, not by polling: a loop that waits costs no turns.
   */
  private idle(maxMs = MAX_YIELD_MS): Promise<number> {
    if (this.requestsInFlight === 0 || maxMs <= 0) return Promise.resolve(0);
    const from = performance.now();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(done);
        resolve(performance.now() - from);
      };
      const timer = setTimeout(done, maxMs);
      this.idleWaiters.add(done);
    });
  }

  /** Turns for a pass of writes or checks, giving way to API requests (see `slicer`). */
  private slicer() {
    return slicer(
      () => this.requestsInFlight > 0,
      (maxMs) => this.idle(maxMs),
    );
  }

  /** Counts an API request until its response closes (answered, failed or cut off). */
  track(response: { once(event: 'close', listener: () => void): unknown }): void {
    this.requestsInFlight++;
    response.once('close', () => {
      if (--this.requestsInFlight > 0 || this.idleWaiters.size === 0) return;
      for (const wake of [...this.idleWaiters]) wake();
    });
  }

  /**
   * Starts a stream on `out` (headers not yet sent) and sends the snapshot. `only`: the resources
   * it follows (none: every one); `fields`: the fields of a status it gets (none: all).
   */
  async open(
    caller: Caller,
    out: ServerResponse,
    stillValid: () => Promise<boolean>,
    follow: { only?: number[]; format?: LiveFormat; fields?: ResourceStatusField[] } = {},
  ): Promise<void> {
    const { only = [], format = 'full', fields = [] } = follow;
    out.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // Reverse proxies (nginx) must pass events on at once.
      'x-accel-buffering': 'no',
    });
    const view = this.viewOf(caller, only, format, fields);
    const client: LiveClient = {
      caller,
      view,
      out,
      stillValid,
      snapshotSent: false,
      remote: null,
      ended: false,
    };
    // In its view at once (which keeps the view while this waits), written to only once in
    // `clients`; a stream closed meanwhile leaves nothing behind.
    view.clients.add(client);
    // Once the writer holds the socket, the hub's copy closes: the writer tells when the stream ends.
    out.on('close', () => {
      if (client.remote === null) this.drop(client);
    });
    view.fresh.add(client);
    out.flushHeaders();
    await this.writer.adopt(out, (id) => {
      client.remote = id;
      this.remote.set(id, client);
    });
    const { family } = view;
    if (family.viewer.admin && this.logCursor === null)
      this.logCursor = await newestLogId(this.ctx.storage.reads);
    if (client.ended || this.closed || (client.remote === null && out.destroyed)) {
      this.endClient(client, null);
      return;
    }
    this.clients.add(client);
    if (family.viewer.admin) this.logTimer ??= setTimeout(() => void this.pollLogs(), this.options.logPollMs);
    // The snapshot may be newer than what its pace last read: the next flush sends every change.
    this.paces[paceOf(family)].lastRows.clear();
    const rows = (await readVisibleStatuses(this.ctx.storage.reads, view.viewer)).filter(
      (row) => family.only === null || family.only.has(row.resource),
    );
    const resources = rows.map((row) => shape(view.viewer, family.fields, row));
    for (const r of resources) family.known.add(r.resource);
    // A retry hint for EventSource, then the snapshot.
    if (this.clients.has(client))
      this.write(client, `retry: 2000\n\n${frame({ type: 'snapshot', resources })}`);
    client.snapshotSent = true;
  }

  /** Ends the streams of callers for whom `match` holds (sign-out, a revoked session or key). */
  end(match: (caller: Caller) => boolean, reason: string): void {
    for (const client of [...this.clients]) {
      if (!match(client.caller)) continue;
      this.endClient(client, frame({ type: 'signedOut', reason }));
    }
  }

  /** Ends every stream and stops the timers; a second call does nothing. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.keepAlive);
    for (const pace of Object.values(this.paces)) if (pace.timer) clearTimeout(pace.timer);
    if (this.logTimer) clearTimeout(this.logTimer);
    this.logTimer = null;
    for (const client of [...this.clients]) this.endClient(client, null);
    void this.writer.close();
    this.clients.clear();
    this.views.clear();
    this.families.clear();
    for (const kind of PACES) this.viewCount[kind] = 0;
    // Flushes that wait for a quiet moment finish now (on no streams) rather than at their timer.
    for (const wake of [...this.idleWaiters]) wake();
  }

  /** The view of a new stream: the one its equals already share, or a new one (in its family). */
  private viewOf(
    caller: Caller,
    only: number[],
    format: LiveFormat,
    fields: ResourceStatusField[],
  ): LiveView {
    const admin = isAdmin(caller);
    const followed = only.length ? [...new Set(only)].sort((a, b) => a - b) : null;
    const shown = fields.length ? [...new Set(fields)].sort() : null;
    const familyKey = `${caller.accountId}:${admin}:${caller.superuser}:${followed ? followed.join(',') : '*'}:${format}:${shown ? shown.join(',') : '*'}`;
    const key = `${caller.memberId}:${familyKey}`;
    let view = this.views.get(key);
    if (view) return view;
    let family = this.families.get(familyKey);
    if (!family) {
      family = {
        key: familyKey,
        viewer: { accountId: caller.accountId, memberId: 0, superuser: caller.superuser, admin },
        only: followed ? new Set(followed) : null,
        format,
        fields: shown,
        views: new Set(),
        known: new Set(),
        sent: new Map(),
      };
      this.families.set(familyKey, family);
    }
    view = {
      key,
      viewer: { accountId: caller.accountId, memberId: caller.memberId, superuser: caller.superuser, admin },
      family,
      clients: new Set(),
      own: new Map(),
      fresh: new Set(),
    };
    family.views.add(view);
    this.views.set(key, view);
    this.viewCount[paceOf(family)]++;
    return view;
  }

  /** Ends a stream (after `last`, its last event, if any) and forgets it. */
  private endClient(client: LiveClient, last: string | null): void {
    const ended = client.ended;
    this.drop(client);
    if (ended) return;
    if (client.remote !== null) this.writer.end([client.remote], last === null ? null : wire(last).chunk);
    else if (last === null) client.out.end();
    else client.out.end(last);
  }

  /** Streams the writer process no longer holds. */
  private remoteClosed(ids: number[]): void {
    for (const id of ids) {
      const client = this.remote.get(id);
      if (client) this.drop(client);
    }
  }

  private drop(client: LiveClient): void {
    client.ended = true;
    if (client.remote !== null) this.remote.delete(client.remote);
    this.clients.delete(client);
    const { view } = client;
    view.clients.delete(client);
    view.fresh.delete(client);
    if (view.clients.size === 0 && this.views.get(view.key) === view) {
      this.views.delete(view.key);
      this.viewCount[paceOf(view.family)]--;
      view.family.views.delete(view);
      if (view.family.views.size === 0) this.families.delete(view.family.key);
    }
  }

  private resourceChanged(resourceId: number): void {
    for (const kind of PACES) {
      // No stream at this pace: nothing to gather (a view that opens later starts from its snapshot).
      if (this.viewCount[kind] === 0) continue;
      const pace = this.paces[kind];
      pace.changed.add(resourceId);
      pace.timer ??= setTimeout(() => void this.flush(kind), this.delay(kind));
    }
  }

  private delay(kind: Pace): number {
    const { batchMs, wideBatchMs, overviewBatchMs } = this.options;
    return { narrow: batchMs, wide: wideBatchMs, overview: overviewBatchMs }[kind];
  }

  private async flush(kind: Pace): Promise<void> {
    const pace = this.paces[kind];
    // The read and the building below run in one piece: they start between API requests.
    if (this.viewCount[kind] > 0) await this.idle();
    let ids = [...pace.changed];
    pace.changed.clear();
    try {
      const families = [...this.families.values()].filter((f) => paceOf(f) === kind);
      if (families.length === 0) {
        pace.lastRows.clear();
        return;
      }
      // Fresh streams whose snapshot was written before this read: after this flush they hold
      // what their view was sent (the others stay fresh, and get whole states again next time).
      const settled = new Set<LiveClient>();
      for (const family of families)
        for (const view of family.views)
          for (const client of view.fresh) if (client.snapshotSent) settled.add(client);
      const rows = new Map((await readStatuses(this.ctx.storage.reads, ids)).map((r) => [r.resource, r]));
      // Every client of this pace heard of the last state read (or got it in its snapshot, which
      // was read after): an unchanged row needs no event. Views are built from the row alone.
      ids = ids.filter((id) => {
        const row = rows.get(id);
        if (!row) {
          pace.lastRows.delete(id);
          return true;
        }
        const text = JSON.stringify(row);
        if (pace.lastRows.get(id) === text) return false;
        pace.lastRows.set(id, text);
        return true;
      });
      if (ids.length === 0) return;
      // One message per family (the same role and followed resources), built once and written to
      // each of its streams as the same bytes; a view whose member's own session changed, its own.
      const writes: [LiveClient[], Wire][] = [];
      for (const family of families) writes.push(...this.changesFor(family, ids, rows, settled));
      await this.writeAll(writes);
    } catch (err) {
      this.ctx.logger.error({ err }, 'live channel: reading resource states failed');
    } finally {
      pace.timer = null;
      if (pace.changed.size > 0) pace.timer = setTimeout(() => void this.flush(kind), this.delay(kind));
    }
  }

  /**
   * Writes each view's bytes to its streams in slices of SLICE_MS with a turn of the event loop
   * between, so a switch-on that arrives meanwhile is answered without waiting for every socket
   * write of the batch.
   */
  private async writeAll(writes: [Iterable<LiveClient>, Wire][]): Promise<void> {
    const turn = this.slicer();
    for (const [clients, out] of writes) {
      // The writer's streams get the bytes in one message; the hub's own, in slices.
      const inline: LiveClient[] = [];
      const ids: number[] = [];
      for (const client of clients) {
        if (client.remote === null) inline.push(client);
        else if (this.clients.has(client)) ids.push(client.remote);
      }
      this.writer.write(ids, out.chunk);
      for (const client of inline) {
        const pause = turn();
        if (pause) await pause;
        if (this.clients.has(client)) this.write(client, out);
      }
    }
  }

  /**
   * The events of one flush for a family, built once for all its views' streams, with the
   * streams they go to; a view whose member's own session is among the changes (or was, as its
   * streams hold it) gets events of its own. What the family's streams were told about follows (a
   * resource gone from it is removed from their screens).
   */
  private changesFor(
    family: LiveFamily,
    ids: number[],
    rows: Map<number, StatusRow>,
    settled: Set<LiveClient>,
  ): [LiveClient[], Wire][] {
    let removed = '';
    const shown: StatusRow[] = [];
    for (const id of ids) {
      if (family.only !== null && !family.only.has(id)) continue;
      const row = rows.get(id);
      if (row && seesStatus(family.viewer, row)) {
        family.known.add(id);
        shown.push(row);
      } else if (family.known.delete(id)) {
        family.sent.delete(id);
        for (const view of family.views) view.own.delete(id);
        removed += frame({ type: 'resourceRemoved', resource: id });
      }
    }
    // The states as the family sees them, and what its streams held before.
    const before = new Map<number, ResourceStatus | undefined>();
    const now: ResourceStatus[] = [];
    const sessionMembers = new Set<number>();
    for (const row of shown) {
      const status = shape(family.viewer, family.fields, row);
      before.set(row.resource, family.sent.get(row.resource));
      family.sent.set(row.resource, status);
      now.push(status);
      if (row.sessionMember !== null) sessionMembers.add(row.sessionMember);
    }
    // Streams that hold the last states sent are sent what differs from them (`changes`: the
    // fields; `full`: the whole status), nothing for a resource whose fields they get did not
    // change; fresh ones (a snapshot read since) get every whole state, until a flush that read
    // after their snapshot.
    const changedText = (statuses: ResourceStatus[], held: (id: number) => ResourceStatus | undefined) => {
      const list: ResourceChange[] = [];
      const whole: ResourceStatus[] = [];
      for (const status of statuses) {
        const was = held(status.resource);
        const change = was ? changedFields(was, status) : status;
        if (!hasChange(change)) continue;
        list.push(change);
        whole.push(status);
      }
      return this.eventText(family, list, whole, removed);
    };
    const writes: [LiveClient[], Wire][] = [];
    const shared = { held: [] as LiveClient[], fresh: [] as LiveClient[] };
    for (const view of family.views) {
      const held: LiveClient[] = [];
      const fresh: LiveClient[] = [];
      for (const client of view.clients) (view.fresh.has(client) ? fresh : held).push(client);
      for (const client of fresh) if (settled.has(client)) view.fresh.delete(client);
      const own =
        sessionMembers.has(view.viewer.memberId) ||
        (view.own.size > 0 && shown.some((row) => view.own.has(row.resource)));
      if (!own) {
        shared.held.push(...held);
        shared.fresh.push(...fresh);
        continue;
      }
      // Its member's own session: the states as that member sees them.
      const mine = shown.map((row) => shape(view.viewer, family.fields, row));
      const forHeld = changedText(mine, (id) => view.own.get(id) ?? before.get(id));
      if (forHeld && held.length) writes.push([held, wire(forHeld)]);
      const forFresh = this.eventText(family, mine, mine, removed);
      if (forFresh && fresh.length) writes.push([fresh, wire(forFresh)]);
      mine.forEach((status, i) => {
        if (hasChange(changedFields(now[i], status))) view.own.set(status.resource, status);
        else view.own.delete(status.resource);
      });
    }
    const forHeld = changedText(now, (id) => before.get(id));
    if (forHeld && shared.held.length) writes.push([shared.held, wire(forHeld)]);
    const forFresh = this.eventText(family, now, now, removed);
    if (forFresh && shared.fresh.length) writes.push([shared.fresh, wire(forFresh)]);
    return writes;
  }

  /** A flush's events in the family's format: `changes` as `list`, `full` as the `whole` states. */
  private eventText(
    family: LiveFamily,
    list: ResourceChange[],
    whole: ResourceStatus[],
    removed: string,
  ): string {
    if (family.format === 'full')
      return whole.map((status) => frame({ type: 'resource', status })).join('') + removed;
    return (list.length ? frame({ type: 'changes', changes: list }) : '') + removed;
  }

  /**
   * The admins' activity feed: every resource log written since the last look (by this hub or
   * another on the same database: taps, switch-ons, late offline decisions, key assignments,
   * pairings) goes to the admins of its account as a `log` event. Polled while admins listen,
   * so it needs no hook in every place that writes a log.
   */
  private async pollLogs(): Promise<void> {
    this.logTimer = null;
    const families = [...this.families.values()].filter((f) => f.viewer.admin);
    if (families.length === 0) {
      this.logCursor = null;
      return;
    }
    try {
      await this.idle();
      const rows = await logsAfter(this.ctx.storage.reads, this.logCursor ?? 0, 500);
      if (rows.length > 0) {
        this.logCursor = Number(rows[rows.length - 1].id);
        // Each log's event is built once, whoever it goes to.
        const events = new Map<LiveLogRow, string>();
        const writes: [Iterable<LiveClient>, Wire][] = [];
        for (const family of families) {
          let out = '';
          for (const row of rows) {
            if (!family.viewer.superuser && Number(row.account) !== family.viewer.accountId) continue;
            if (family.only !== null && !family.only.has(Number(row.resource))) continue;
            let event = events.get(row);
            if (event === undefined) {
              event = frame({ type: 'log', log: liveLog(row) });
              events.set(row, event);
            }
            out += event;
          }
          if (out) writes.push([[...family.views].flatMap((view) => [...view.clients]), wire(out)]);
        }
        await this.writeAll(writes);
      }
    } catch (err) {
      this.ctx.logger.error({ err }, 'live channel: reading new resource logs failed');
    } finally {
      if (this.logCursor !== null && !this.closed) {
        this.logTimer = setTimeout(() => void this.pollLogs(), this.options.logPollMs);
      }
    }
  }

  private closed = false;

  private async ping(): Promise<void> {
    const turn = this.slicer();
    // The writer's streams get their keep-alive in one message, after the checks.
    const remote: number[] = [];
    for (const client of [...this.clients]) {
      // Each check reads the database: in slices, so a thousand streams' checks do not hold up
      // the requests that arrive meanwhile.
      const pause = turn();
      if (pause) await pause;
      if (!(await client.stillValid().catch(() => false))) {
        this.end((c) => c === client.caller, 'Your sign-in has ended');
        continue;
      }
      if (!this.clients.has(client)) continue;
      if (client.remote !== null) remote.push(client.remote);
      else this.write(client, KEEP_ALIVE);
    }
    // Streams that ended during the checks are skipped by the writer (it no longer holds them).
    this.writer.write(remote, KEEP_ALIVE.chunk);
  }

  private write(client: LiveClient, data: string | Wire): void {
    if (client.remote !== null) {
      this.writer.write([client.remote], typeof data === 'string' ? wire(data).chunk : data.chunk);
      return;
    }
    const { out } = client;
    const socket = out.socket;
    if (out.writableLength > MAX_BUFFERED) {
      this.drop(client);
      out.destroy();
      return;
    }
    if (typeof data === 'string') {
      out.write(data);
      return;
    }
    // Headers sent, chunked, nothing of the response's own still queued ahead: the chunk framed
    // once goes to the socket as it is. Otherwise the response frames it.
    if (socket && out.headersSent && out.chunkedEncoding && out.writableLength === socket.writableLength) {
      if (!socket.destroyed) socket.write(data.chunk);
    } else {
      out.write(data.text);
    }
  }
}
