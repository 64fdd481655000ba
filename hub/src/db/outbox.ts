import type { WebhookCategory, WebhookEventType } from '@makerspace/shared';
import { webhookCategories } from '@makerspace/shared';
import { type Clock, systemClock } from '../clock.js';
import type { Db } from './crud.js';
import { parseJson } from './crud.js';
import { rawRows } from './fast-reads.js';

export interface EventInput {
  account: number;
  type: WebhookEventType;
  /**
   * Fabman's details of the type, e.g. `{member}` or `{booking, resource, member}`: API records.
   * A function is called only when some webhook wants the event (keeps hot paths cheap).
   */
  details: Record<string, unknown> | (() => Promise<Record<string, unknown>>);
}

/** The category a webhook subscribes to for this type: the part before `_` (none for `test`). */
export function categoryOf(type: string): WebhookCategory | null {
  const prefix = type.split('_')[0];
  return (webhookCategories as readonly string[]).includes(prefix) ? (prefix as WebhookCategory) : null;
}

/**
 * Writes an event to the outbox, with one queued delivery per webhook of the account that
 * subscribes to its category. Call it with the transaction that makes the change (DESIGN 9):
 * a rolled-back change then sends nothing, and a committed one is never lost. Paused, failing
 * and deactivated webhooks queue the event too; they receive it when active again.
 * Answers the event id, or null when no webhook wants the event (nothing is stored then).
 */
export async function emitEvent(trx: Db, input: EventInput): Promise<number | null> {
  if (accessTypes.test(input.type)) accessChangesOf.get(trx)?.add(input.account);
  // A set lookup decides whether the type can mail anyone (most cannot: switch-on logs).
  if (eventNotifier?.types.has(input.type)) {
    const details = typeof input.details === 'function' ? await input.details() : input.details;
    input = { ...input, details };
    await eventNotifier.notify(trx, input, details, (clockOf.get(trx) ?? systemClock).now().toISOString());
  }
  const category = categoryOf(input.type);
  if (!category) return null;
  // Asked on every change (every switch-on writes a log): plain SQL, no query builder.
  const hooks = await rawRows<{ id: number; categories: string | null }>(
    trx,
    'select "id", "categories" from "webhooks" where "account" = ? order by "id"',
    [input.account],
  );
  const targets = hooks.filter((h) => parseJson<string[]>(h.categories)?.includes(category));
  if (targets.length === 0) return null;
  // The hub's clock when the bus runs the transaction; the system's for a write outside it.
  const createdAt = (clockOf.get(trx) ?? systemClock).now().toISOString();
  const details = typeof input.details === 'function' ? await input.details() : input.details;
  const event = await insertEvent(trx, { ...input, details }, createdAt);
  await trx
    .insertInto('webhook_deliveries')
    .values(
      targets.map((h) => ({
        account: input.account,
        webhook: h.id,
        event: event,
        state: 'pending',
        attempts: 0,
        // Due at once; the worker reads the queue on the same clock (webhooks/worker.ts).
        nextAttemptAt: createdAt,
        createdAt,
      })),
    )
    .execute();
  return event;
}

export async function insertEvent(
  db: Db,
  input: EventInput & { details: Record<string, unknown> },
  createdAt: string,
): Promise<number> {
  const row = await db
    .insertInto('webhook_events')
    .values({ account: input.account, type: input.type, details: JSON.stringify(input.details), createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  eventsStored++;
  return row.id;
}

/** Changes of these kinds can change who may use a resource (and so a bridge's offline keys). */
const accessTypes = /^(member|memberKey|memberPackage|memberTraining)_/;

/**
 * The accounts whose access rules a running bus transaction changed, by transaction: emitEvent
 * notes them, the bus announces them after the commit (a rolled-back change announces nothing).
 */
const accessChangesOf = new WeakMap<Db, Set<number>>();

/** The clock of the bus running a transaction (the hub's), by transaction: events take their time from it. */
const clockOf = new WeakMap<Db, Clock>();

/** Events written so far by this process: a transaction that wrote none need not wake the worker. */
let eventsStored = 0;

/**
 * Mail notifications of events (notifications/notify.ts implements it; hub.ts sets it): `types`
 * are the event types that can notify anyone, `notify` queues the mails in the event's
 * transaction. Storage knows no areas, so the hook is set from outside.
 */
export interface EventNotifier {
  readonly types: ReadonlySet<string>;
  notify(trx: Db, input: EventInput, details: Record<string, unknown>, at: string): Promise<void>;
}

let eventNotifier: EventNotifier | null = null;

/**
 * Sets the mail notifier of events. It writes only rows of the transaction it is given (no state
 * of a hub), so every hub of a process sets the same one.
 */
export function setEventNotifier(notifier: EventNotifier | null): void {
  eventNotifier = notifier;
}

/** Something else for a worker was written to an outbox: the commit wakes the workers. */
export function noteOutboxWrite(): void {
  eventsStored++;
}

/**
 * `ctx.events`: runs a change and its events in one transaction and wakes the delivery worker
 * right after the commit (the worker also polls, so an event emitted in a transaction that is
 * not run through here is still delivered, only up to one poll interval later).
 */
interface QueuedWork {
  fn: (trx: Db) => Promise<unknown>;
  resolve: (value: any) => void;
  reject: (err: unknown) => void;
}

export class EventBus {
  private readonly listeners = new Set<() => void>();
  private readonly accessListeners = new Set<(account: number) => void>();
  private queue: QueuedWork[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    /** The hub's clock: stamps the events. */
    private readonly clock: Clock,
  ) {}

  /**
   * Like transaction(), but small writes that arrive together share one transaction (group
   * commit): under load one fsync then carries many switch-on logs instead of one each. Each
   * caller's promise settles only after the shared commit, so nothing is acknowledged early. If
   * the shared transaction fails, every piece is retried alone, so one bad write fails alone.
   * The pieces must not depend on each other's effects.
   */
  grouped<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        const results = await this.transaction(async (trx) => {
          const out: unknown[] = [];
          for (const work of batch) out.push(await work.fn(trx));
          return out;
        });
        for (const [i, work] of batch.entries()) work.resolve(results[i]);
      } catch (err) {
        if (batch.length === 1) {
          batch[0].reject(err);
          continue;
        }
        for (const work of batch) {
          try {
            work.resolve(await this.transaction(work.fn));
          } catch (e) {
            work.reject(e);
          }
        }
      }
    }
    this.flushing = false;
  }

  async transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    const before = eventsStored;
    const changed = new Set<number>();
    const result = await this.db.transaction().execute((trx) => {
      accessChangesOf.set(trx, changed);
      clockOf.set(trx, this.clock);
      return fn(trx);
    });
    // Any event written meanwhile (by this transaction or another) wakes the worker; the worker
    // also polls, so a wake is an optimisation, never the only way an event is delivered.
    if (eventsStored !== before) this.committed();
    for (const account of changed) this.accessChanged(account);
    return result;
  }

  /**
   * A committed change of the account's members, keys, packages, permissions, trainings or time
   * rules: who may use its resources may differ now. Member, key, member package and member
   * training changes announce themselves through their events; other writes call this.
   */
  accessChanged(account: number): void {
    for (const listener of this.accessListeners) listener(account);
  }

  onAccessChange(listener: (account: number) => void): () => void {
    this.accessListeners.add(listener);
    return () => this.accessListeners.delete(listener);
  }

  /** The same as the module's `emitEvent`; here for callers that only hold the context. */
  emit(trx: Db, input: EventInput): Promise<number | null> {
    return emitEvent(trx, input);
  }

  /** Tells the worker that a transaction that emitted events has committed. */
  committed(): void {
    for (const listener of this.listeners) listener();
  }

  onCommit(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
