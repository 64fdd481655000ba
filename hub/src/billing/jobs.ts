import type { Logger } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Clock } from '../context.js';
import type { Db } from '../db/crud.js';
import { jsonText, parseJson } from '../db/crud.js';
import { columnsOf, referencedRow, stampsOf } from '../db/records.js';
import type { JobsTable } from '../db/schema.js';
import type { Caller } from '../kernel/caller.js';
import { visibleIn } from './list-filters.js';
import { HttpError, unprocessable } from '../errors.js';
import { membersWithUninvoicedCharges } from './billing.repository.js';
import { accountIds } from '../identity/accounts.repository.js';
import { memberNames } from '../identity/members.repository.js';
import { claimJob, dueJobs, insertJob, jobsInState, recentJob, updateJob } from './jobs.repository.js';
import { createInvoice, draftInvoice } from './invoices.js';
import { formatMoney, parseMoney, sum } from '../kernel/money.js';
import { chargeRecord } from './charges.js';
import { billAccountPackages, yieldToRequests } from './package-billing.js';

export type JobRow = Selectable<JobsTable>;
export type JobType = 'packageBilling' | 'invoiceRun';

/** A job found `running` at start was interrupted; it is run again this many times at most. */
export const MAX_ATTEMPTS = 3;

export function jobRecord(row: JobRow) {
  return {
    ...columnsOf(row, ['id', 'account']),
    type: row.type as JobType,
    state: row.state as 'queued' | 'running' | 'succeeded' | 'failed',
    params: parseJson<Record<string, unknown>>(row.params) ?? {},
    progress: row.progress,
    result: parseJson<unknown>(row.result),
    ...columnsOf(row, ['error', 'attempts', 'runAfter', 'startedAt', 'finishedAt']),
    ...stampsOf(row),
  };
}

// Jobs are the account's bookkeeping: plain members see none.
export const visibleJobs = (db: Db, caller: Caller) => visibleIn(db, 'jobs', caller, null);

/** `member` of a job: for invoice runs only, and a member of the account (422 otherwise). */
export async function checkJobMember(db: Db, accountId: number, type: string, member: number | undefined) {
  if (member === undefined) return;
  if (type !== 'invoiceRun')
    throw unprocessable('member applies to invoiceRun only', { member: 'unexpected' });
  await referencedRow(db, 'members', { id: member, account: accountId, field: 'member', noun: 'Member' });
}

/** The member an invoice run is limited to, if any (its `member` param). */
const runMember = (params: Record<string, unknown>) =>
  typeof params.member === 'number' ? params.member : undefined;

/**
 * What `POST /jobs {type: invoiceRun}` would invoice now, written nowhere: the same members the
 * run picks and, per member, the invoice createInvoice would make (draftInvoice, the code it
 * runs), with its lines. A member the run would skip is listed with the reason.
 */
export async function previewInvoiceRun(db: Db, accountId: number, member: number | undefined, at: Date) {
  const members = await membersWithUninvoicedCharges(db, accountId, member);
  const names = new Map((await memberNames(db, members)).map((m) => [m.id, m]));
  const invoices = [];
  const skipped: { member: number; reason: string }[] = [];
  for (const id of members) {
    try {
      const draft = await draftInvoice(db, accountId, { member: id }, at, { forUpdate: false });
      const who = names.get(id);
      invoices.push({
        member: id,
        memberName: who ? `${who.firstName} ${who.lastName}`.trim() : `Member ${id}`,
        memberNumber: who?.memberNumber ?? null,
        date: draft.date,
        dueDate: draft.dueDate,
        currency: draft.currency,
        total: formatMoney(draft.total),
        charges: draft.charges.map(chargeRecord),
      });
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      skipped.push({ member: id, reason: err.message });
    }
  }
  return {
    memberCount: invoices.length,
    total: formatMoney(sum(invoices.map((i) => parseMoney(i.total)))),
    invoices,
    skipped,
  };
}

export async function enqueueJob(
  db: Db,
  accountId: number,
  type: JobType,
  params: Record<string, unknown>,
  at: Date,
  createdBy: number | null,
): Promise<JobRow> {
  const stamp = at.toISOString();
  return insertJob(db, {
    account: accountId,
    type,
    state: 'queued',
    params: jsonText(params) ?? '{}',
    runAfter: stamp,
    createdAt: stamp,
    updatedAt: stamp,
    updatedBy: createdBy,
  });
}

/** Charges of saved payment methods (billing/stripe-charges.ts), when the hub takes payments online. */
export interface SavedMethodCharges {
  /** Charges the unpaid invoices of the account's members (or the one member) to their saved methods. */
  charge(accountId: number, member: number | undefined): Promise<unknown>;
  /** Charges again what failed and is due for another attempt, in every account. */
  retryDue(): Promise<void>;
}

export interface JobRunnerOptions {
  /** How often queued jobs are looked for (ms). */
  intervalMs?: number;
  /** How often the recurring package billing runs per account (ms). */
  packageBillingEveryMs?: number;
  /** How often failed charges whose retry is due are charged again (ms; hourly by default). */
  chargeRetriesEveryMs?: number;
}

type Progress = (percent: number) => Promise<void>;

/**
 * The hub's background work as records in `jobs`. Jobs are claimed with a conditional update
 * (queued -> running), so several hub processes on one PostgreSQL database never run one twice.
 * Every job is idempotent, so a job found `running` at start (the hub died under it) is queued
 * again; after MAX_ATTEMPTS interrupted runs it is marked failed with the reason.
 */
export class JobRunner {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly packageBillingEveryMs: number;
  private readonly chargeRetriesEveryMs: number;
  private lastScheduled = 0;
  private lastRetries = 0;

  constructor(
    private readonly deps: { db: Db; clock: Clock; logger: Logger; charges?: SavedMethodCharges },
    options: JobRunnerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5_000;
    this.packageBillingEveryMs = options.packageBillingEveryMs ?? 60 * 60_000;
    this.chargeRetriesEveryMs = options.chargeRetriesEveryMs ?? 60 * 60_000;
  }

  async start(): Promise<void> {
    await this.recover();
    this.timer = setInterval(() => {
      this.tick().catch((err) => this.deps.logger.error({ err }, 'job runner tick failed'));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current.catch(() => undefined);
  }

  /** Jobs left `running` by a hub that stopped: queue them again, or fail them with the reason. */
  async recover(): Promise<number> {
    const { db } = this.deps;
    const stuck = await jobsInState(db, 'running');
    for (const job of stuck) {
      const giveUp = job.attempts >= MAX_ATTEMPTS;
      const at = this.now();
      await updateJob(
        db,
        job.id,
        {
          state: giveUp ? 'failed' : 'queued',
          error: giveUp
            ? `Interrupted by hub restarts ${job.attempts} times; not retried again`
            : 'Interrupted by a hub restart; queued again',
          finishedAt: giveUp ? at : null,
          updatedAt: at,
        },
        'running',
      );
      this.deps.logger.warn({ job: job.id, type: job.type, giveUp }, 'found an interrupted job');
    }
    return stuck.length;
  }

  /** One round: schedule the recurring work, then run every due job. */
  async tick(): Promise<void> {
    // Looking for due recurring work costs a query per account: once a minute is plenty.
    const time = this.deps.clock.now().getTime();
    if (time - this.lastScheduled >= 60_000 || time < this.lastScheduled) {
      this.lastScheduled = time;
      await this.scheduleRecurring();
    }
    await this.runDue();
    const { charges } = this.deps;
    if (charges && (time - this.lastRetries >= this.chargeRetriesEveryMs || time < this.lastRetries)) {
      this.lastRetries = time;
      // In turn with the jobs (one round at a time).
      const next = this.current.catch(() => undefined).then(() => charges.retryDue());
      this.current = next;
      await next;
    }
  }

  /** The hub's clock, as stored. */
  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  /** Runs queued jobs that are due; waits for a round already under way. One round at a time. */
  runDue(): Promise<void> {
    const next = this.current.catch(() => undefined).then(() => this.runQueued());
    this.current = next;
    return next;
  }

  /** Queues a package-billing job per account unless one was made within the period. */
  async scheduleRecurring(): Promise<void> {
    const { db, clock } = this.deps;
    const at = clock.now();
    const since = new Date(at.getTime() - this.packageBillingEveryMs).toISOString();
    for (const account of await accountIds(db)) {
      const recent = await recentJob(db, account, 'packageBilling', since);
      if (!recent) await enqueueJob(db, account, 'packageBilling', { recurring: true }, at, null);
    }
  }

  private async runQueued(): Promise<void> {
    const { db, clock } = this.deps;
    for (;;) {
      const due = await dueJobs(db, clock.now().toISOString(), 20);
      if (due.length === 0) return;
      let ran = 0;
      for (const job of due) {
        if (!(await claimJob(db, job.id, this.now()))) continue;
        ran++;
        await this.run(job);
      }
      if (ran === 0) return;
    }
  }

  private async run(job: JobRow): Promise<void> {
    const { db } = this.deps;
    const progress: Progress = async (percent) => {
      await updateJob(db, job.id, {
        progress: Math.max(0, Math.min(100, Math.floor(percent))),
        updatedAt: this.now(),
      });
    };
    try {
      const result = await this.handle(job, progress);
      const at = this.now();
      await updateJob(db, job.id, {
        state: 'succeeded',
        progress: 100,
        result: jsonText(result) ?? null,
        error: null,
        finishedAt: at,
        updatedAt: at,
      });
    } catch (err) {
      this.deps.logger.error({ err, job: job.id }, 'job failed');
      const at = this.now();
      await updateJob(db, job.id, {
        state: 'failed',
        error: (err as Error).message ?? String(err),
        finishedAt: at,
        updatedAt: at,
      });
    }
  }

  private async handle(job: JobRow, progress: Progress): Promise<unknown> {
    const params = parseJson<Record<string, unknown>>(job.params) ?? {};
    if (job.type === 'packageBilling') {
      return billAccountPackages(this.deps.db, job.account, this.deps.clock.now(), (done, total) =>
        progress((done / total) * 100),
      );
    }
    if (job.type === 'invoiceRun') return this.invoiceRun(job.account, params, progress);
    throw new Error(`Unknown job type ${job.type}`);
  }

  /**
   * Invoices every member of the account with uninvoiced charges (or the one named), each in its
   * own transaction, letting other requests in between; the progress is written when its whole
   * percent changes (a write per member would double the run's commits).
   */
  private async invoiceRun(accountId: number, params: Record<string, unknown>, progress: Progress) {
    const { db, clock } = this.deps;
    const members = await membersWithUninvoicedCharges(db, accountId, runMember(params));
    const invoices: number[] = [];
    const skipped: { member: number; reason: string }[] = [];
    let percent = 0;
    for (const [i, member] of members.entries()) {
      try {
        const invoice = await db
          .transaction()
          .execute((trx) => createInvoice(trx, accountId, { member }, clock.now(), null));
        invoices.push(invoice.id);
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        skipped.push({ member, reason: err.message });
      }
      const now = Math.floor(((i + 1) / members.length) * 100);
      if (now !== percent) {
        percent = now;
        await progress(now);
      }
      await yieldToRequests();
    }
    // Then the saved payment methods are charged: the new invoices, and open ones not charged
    // yet (a run stopped halfway is resumed here, without charging anything twice).
    const payments = this.deps.charges
      ? await this.deps.charges.charge(accountId, runMember(params))
      : undefined;
    return payments ? { invoices, skipped, payments } : { invoices, skipped };
  }
}
