import type { ServerResponse } from 'node:http';
import type { LiveMessage } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import {
  readStatuses,
  readVisibleStatuses,
  type StatusRow,
  seesStatus,
  statusFor,
  type Viewer,
} from '../resources/status.js';
import { type Caller, isAdmin } from '../identity/caller.js';
import { liveLog, logsAfter, newestLogId } from './live-logs.js';

interface LiveClient {
  caller: Caller;
  admin: boolean;
  /** The same, as the resource-status code reads it. */
  viewer: Viewer;
  out: ServerResponse;
  /** Resources this client was told about (so a deleted one can be taken off its screen). */
  known: Set<number>;
  /** Is the caller's credential still good? Asked at every keep-alive. */
  stillValid: () => Promise<boolean>;
  /** Only these resources (a machine page follows one); null: every resource the caller sees. */
  only: Set<number> | null;
  /** Clients with the same key see the same: one text per batch serves them all. */
  viewKey: string;
}

/** Clients written to between two turns of the event loop, so requests are not kept waiting. */
const WRITES_PER_TURN = 20;

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

function frame(message: LiveMessage): string {
  return `event: ${message.type}\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * The live channel (DESIGN 11): one Server-Sent Events stream per browser that first sends the
 * state of every resource the caller sees, then each change. Changes are gathered for a short
 * moment and sent as one write per client, so a busy space costs one status query and a bounded
 * number of writes per interval, however many switch-ons happen meanwhile.
 */
export class LiveChannel {
  private readonly clients = new Set<LiveClient>();
  /**
   * Two paces: streams that follow chosen resources (a machine page) hear of a change within
   * `batchMs`; streams that follow everything (home pages, dashboards) within `wideBatchMs`,
   * which gathers a busy space's many changes into far fewer, latest-state-only writes.
   */
  private readonly paces = {
    narrow: newPace(),
    wide: newPace(),
  };
  private readonly keepAlive: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  /** The admins' feed: logs after this id are sent next (null until an admin listens). */
  private logCursor: number | null = null;
  private logTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: HubContext,
    private readonly options = { batchMs: 250, wideBatchMs: 500, keepAliveMs: 25_000, logPollMs: 250 },
  ) {
    this.unsubscribe = ctx.signals.onChange((id) => this.resourceChanged(id));
    this.keepAlive = setInterval(() => void this.ping(), options.keepAliveMs);
    this.keepAlive.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Starts a stream on `out` (headers not yet sent) and sends the snapshot. */
  async open(
    caller: Caller,
    out: ServerResponse,
    stillValid: () => Promise<boolean>,
    only: number[] = [],
  ): Promise<void> {
    out.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // Reverse proxies (nginx) must pass events on at once.
      'x-accel-buffering': 'no',
    });
    const client: LiveClient = {
      caller,
      admin: isAdmin(caller),
      viewer: {
        accountId: caller.accountId,
        memberId: caller.memberId,
        superuser: caller.superuser,
        admin: isAdmin(caller),
      },
      out,
      known: new Set(),
      stillValid,
      only: only.length ? new Set(only) : null,
      viewKey: `${caller.accountId}:${caller.memberId}:${isAdmin(caller)}:${caller.superuser}:${only.length ? [...new Set(only)].sort().join(',') : '*'}`,
    };
    if (client.admin && this.logCursor === null) this.logCursor = await newestLogId(this.ctx.storage.reads);
    this.clients.add(client);
    out.on('close', () => this.clients.delete(client));
    if (client.admin) this.logTimer ??= setTimeout(() => void this.pollLogs(), this.options.logPollMs);
    // The snapshot may be newer than what its pace last read: the next flush sends every change.
    this.paces[client.only === null ? 'wide' : 'narrow'].lastRows.clear();
    const rows = (await readVisibleStatuses(this.ctx.storage.reads, client.viewer)).filter(
      (row) => client.only === null || client.only.has(row.resource),
    );
    const resources = rows.map((row) => statusFor(client.viewer, row));
    for (const r of resources) client.known.add(r.resource);
    // A retry hint for EventSource, then the snapshot.
    this.write(client, `retry: 2000\n\n${frame({ type: 'snapshot', resources })}`);
  }

  /** Ends the streams of callers for whom `match` holds (sign-out, a revoked session or key). */
  end(match: (caller: Caller) => boolean, reason: string): void {
    for (const client of [...this.clients]) {
      if (!match(client.caller)) continue;
      this.clients.delete(client);
      client.out.end(frame({ type: 'signedOut', reason }));
    }
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.keepAlive);
    for (const pace of Object.values(this.paces)) if (pace.timer) clearTimeout(pace.timer);
    if (this.logTimer) clearTimeout(this.logTimer);
    this.logTimer = null;
    for (const client of this.clients) client.out.end();
    this.clients.clear();
  }

  private resourceChanged(resourceId: number): void {
    if (this.clients.size === 0) return;
    for (const kind of ['narrow', 'wide'] as const) {
      const pace = this.paces[kind];
      pace.changed.add(resourceId);
      pace.timer ??= setTimeout(() => void this.flush(kind), this.delay(kind));
    }
  }

  private delay(kind: 'narrow' | 'wide'): number {
    return kind === 'narrow' ? this.options.batchMs : this.options.wideBatchMs;
  }

  private async flush(kind: 'narrow' | 'wide'): Promise<void> {
    const pace = this.paces[kind];
    let ids = [...pace.changed];
    pace.changed.clear();
    try {
      const targets = [...this.clients].filter((c) => (c.only === null) === (kind === 'wide'));
      if (targets.length === 0) {
        pace.lastRows.clear();
        return;
      }
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
      // Clients that see the same (the same member, role and followed resources) get the same
      // bytes: built once per flush and written to each of them without copying.
      const outputs = new Map<string, Buffer | null>();
      const changed = new Set(ids);
      const writes: [LiveClient, Buffer][] = [];
      for (const client of targets) {
        if (!this.clients.has(client)) continue;
        let out = outputs.get(client.viewKey);
        if (out === undefined) {
          out = this.changesFor(client, ids, rows);
          outputs.set(client.viewKey, out);
        }
        // What the client was told about follows its view (a resource gone from it is removed).
        const concerned = client.only === null ? ids : [...client.only].filter((id) => changed.has(id));
        for (const id of concerned) {
          const row = rows.get(id);
          if (row && seesStatus(client.viewer, row)) client.known.add(id);
          else if (client.known.delete(id) && out === null)
            out = Buffer.from(frame({ type: 'resourceRemoved', resource: id }));
        }
        if (out) writes.push([client, out]);
      }
      // Many clients: a few at a time, yielding between, so a switch-on that arrives meanwhile
      // is answered without waiting for every socket write of the batch.
      for (let i = 0; i < writes.length; i += WRITES_PER_TURN) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        for (const [client, out] of writes.slice(i, i + WRITES_PER_TURN)) {
          if (this.clients.has(client)) this.write(client, out);
        }
      }
    } catch (err) {
      this.ctx.logger.error({ err }, 'live channel: reading resource states failed');
    } finally {
      pace.timer = null;
      if (pace.changed.size > 0) pace.timer = setTimeout(() => void this.flush(kind), this.delay(kind));
    }
  }

  /** The events of one flush for a client's view, or null when none concern it. */
  private changesFor(client: LiveClient, ids: number[], rows: Map<number, StatusRow>): Buffer | null {
    let out = '';
    for (const id of ids) {
      if (client.only !== null && !client.only.has(id)) continue;
      const row = rows.get(id);
      if (row && seesStatus(client.viewer, row)) {
        const status = statusFor(client.viewer, row);
        out += frame({ type: 'resource', status });
      } else if (client.known.has(id)) {
        out += frame({ type: 'resourceRemoved', resource: id });
      }
    }
    return out ? Buffer.from(out) : null;
  }

  /**
   * The admins' activity feed: every resource log written since the last look (by this hub or
   * another on the same database: taps, switch-ons, late offline decisions, key assignments,
   * pairings) goes to the admins of its account as a `log` event. Polled while admins listen,
   * so it needs no hook in every place that writes a log.
   */
  private async pollLogs(): Promise<void> {
    this.logTimer = null;
    const admins = [...this.clients].filter((c) => c.admin);
    if (admins.length === 0) {
      this.logCursor = null;
      return;
    }
    try {
      const rows = await logsAfter(this.ctx.storage.reads, this.logCursor ?? 0, 500);
      if (rows.length > 0) {
        this.logCursor = Number(rows[rows.length - 1].id);
        for (const client of admins) {
          let out = '';
          for (const row of rows) {
            if (!client.caller.superuser && Number(row.account) !== client.caller.accountId) continue;
            if (client.only !== null && !client.only.has(Number(row.resource))) continue;
            out += frame({ type: 'log', log: liveLog(row) });
          }
          if (out && this.clients.has(client)) this.write(client, out);
        }
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
    for (const client of [...this.clients]) {
      if (!(await client.stillValid().catch(() => false))) {
        this.end((c) => c === client.caller, 'Your sign-in has ended');
        continue;
      }
      this.write(client, ': keep-alive\n\n');
    }
  }

  private write(client: LiveClient, text: string | Buffer): void {
    if (client.out.writableLength > MAX_BUFFERED) {
      this.clients.delete(client);
      client.out.destroy();
      return;
    }
    client.out.write(text);
  }
}
