import { randomUUID } from 'node:crypto';
import type { DenyReason } from '@makerspace/shared';
import type { PolicyContext } from '../access/policy.js';
import type { Db } from '../db/crud.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { badRequest, forbidden, gatewayTimeout, HttpError, notFound, serviceUnavailable } from '../errors.js';
import { ATTEMPT_WINDOW_MS, WRONG_CODE_LIMIT } from '../access/core.rules.js';
import { type AccessRequest, type Decision, denyMessage, type MemberRow } from '../access/policy.js';
import type { FastReads } from '../db/fast-reads.js';
import { codeMatches, retiredCodeHash } from './codes.js';
import { stopAndBill } from './bridge-messages.js';
import { interlockMessage, openInterlock } from './bridge-inputs.js';
import { insertLog } from './resource-logs.js';
import { inCallersAccount, type ResourceRow } from './resources.js';
import { commandDeadline, runSwitchOn, type SwitchOnResult } from './switch-sessions.js';
import {
  bridgeInputsRow,
  bridgeOfflineFlag,
  isRetiredCode,
  newestOpenSession,
  nthWrongCodeAt,
  recordAttempt,
  switchOnRows,
} from './sessions.repository.js';

export const SWITCH_ON_TIMEOUT_MS = 5_000;

export type { SwitchOnResult } from './switch-sessions.js';

function denied(
  reason: DenyReason,
  logId: number,
  message = denyMessage(reason),
  extra: { until?: string; details?: Record<string, unknown>; retryAfter?: number } = {},
): HttpError {
  const data = { reason, resourceLog: logId, ...extra };
  if (reason !== 'tooManyAttempts') return forbidden(message, data);
  return new HttpError(429, message, data, { 'retry-after': String(extra.retryAfter ?? 2) });
}

/** What switch-on and the access check read about one request (DESIGN 6). */
export interface SwitchOnFacts {
  resource: ResourceRow;
  member: MemberRow;
  at: Date;
  request: AccessRequest & { reads: FastReads; memo: Map<string, Promise<unknown>> };
}

export async function switchOnFacts(
  ctx: PolicyContext,
  caller: Caller,
  resourceId: number,
): Promise<SwitchOnFacts> {
  // The hot path reads through the fast reads (committed data, no query builder).
  const reads = ctx.storage.reads;
  const [resource, member] = await switchOnRows(reads, resourceId, caller.memberId);
  if (!resource || !inCallersAccount(caller, resource)) throw notFound('Resource');
  if (!member) throw notFound('Member');
  const at = ctx.clock.now();
  return { resource, member, at, request: { db: ctx.db, reads, memo: new Map(), resource, member, at } };
}

export type PolicyVerdict = Decision & { retryAfter?: number };

/**
 * The member's right to the resource, before any code is looked at: a member without access
 * learns nothing about codes (wrong or right). A lock-out says how long it still lasts.
 */
export async function policyVerdict(ctx: PolicyContext, facts: SwitchOnFacts): Promise<PolicyVerdict> {
  const decision = await ctx.policy.decide(facts.request);
  if (decision.allowed || decision.reason !== 'tooManyAttempts') return decision;
  return { ...decision, retryAfter: await lockOutSeconds(facts) };
}

/** Seconds until the wrong-code lock-out of this member and resource lifts. */
async function lockOutSeconds({ request, resource, member, at }: SwitchOnFacts): Promise<number> {
  const since = new Date(at.getTime() - ATTEMPT_WINDOW_MS).toISOString();
  // The lock lifts when fewer than WRONG_CODE_LIMIT attempts remain in the window, that is when
  // the LIMIT-th newest attempt leaves it.
  const attemptAt = await nthWrongCodeAt(request.reads, resource.id, member.id, since, WRONG_CODE_LIMIT);
  if (attemptAt === undefined) return 1;
  return Math.max(1, Math.ceil((Date.parse(attemptAt) + ATTEMPT_WINDOW_MS - at.getTime()) / 1000));
}

/** Is `code` the resource's current code, one it had before (an old sticker), or neither? */
export async function checkCode(
  ctx: PolicyContext,
  { resource, at, request }: SwitchOnFacts,
  code: string,
): Promise<'right' | 'stale' | 'wrong'> {
  const secret = ctx.tokens.open(resource.switchOnCodeEncrypted);
  if (codeMatches(resource.codeMode, secret, code, at)) return 'right';
  return (await isRetiredCode(request.reads, resource.id, retiredCodeHash(code))) ? 'stale' : 'wrong';
}

/**
 * POST /resources/{id}/switch-on (DESIGN 6): the policy decides, the code proves the member
 * stands at the machine, and the agent switches the relay. Every outcome writes a resource log.
 */
export async function switchOn(
  ctx: PolicyContext,
  caller: Caller,
  resourceId: number,
  /** Admins and owners switch without a code; members must send it. */
  code: string | undefined,
  timeoutMs = SWITCH_ON_TIMEOUT_MS,
): Promise<SwitchOnResult> {
  if (code === undefined && !isAdmin(caller)) {
    throw badRequest('body.code: Required', { validation: [{ path: 'code', message: 'Required' }] });
  }
  const facts = await switchOnFacts(ctx, caller, resourceId);
  const { resource, member, at } = facts;
  // Each log is written with its resourceLog_created event in one transaction, shared with other
  // switch-ons that arrive at the same time (group commit).
  const log = (
    type: 'allowed' | 'denied',
    extra: { reason?: DenyReason; notes?: string; stoppedAt?: string | null } = {},
    before?: (trx: Db) => Promise<unknown>,
  ) =>
    ctx.events.grouped(async (trx) => {
      await before?.(trx);
      return insertLog(
        trx,
        {
          account: resource.account,
          resource: resource.id,
          type,
          member: member.id,
          createdAt: at.toISOString(),
          stoppedAt: extra.stoppedAt ?? (type === 'denied' ? at.toISOString() : null),
          reason: extra.reason ?? null,
          notes: extra.notes ?? null,
          updatedAt: ctx.clock.now().toISOString(),
          updatedBy: member.id,
        },
        { resource, member },
      );
    });

  // The member's right first (a lock-out included), the code second.
  const decision = await policyVerdict(ctx, facts);
  if (!decision.allowed) {
    const entry = await log('denied', { reason: decision.reason });
    const { until, details, retryAfter } = decision;
    throw denied(decision.reason, entry.id, decision.message, { until, details, retryAfter });
  }
  // An admin without a code: the log names the admin as the one who switched.
  const codeCheck = code === undefined ? 'right' : await checkCode(ctx, facts, code);
  if (codeCheck === 'stale') {
    // An old sticker: refused, but not counted as a guess.
    const entry = await log('denied', { reason: 'staleCode' });
    throw denied('staleCode', entry.id);
  }
  if (codeCheck === 'wrong') {
    const entry = await log('denied', { reason: 'wrongCode' }, (trx) =>
      recordAttempt(trx, {
        resource: resource.id,
        member: member.id,
        kind: 'wrongCode',
        at: at.toISOString(),
      }),
    );
    throw denied('wrongCode', entry.id);
  }

  if (!ctx.bridges.isOnline(resource.id)) {
    const why = await unreachable(ctx, resource.id);
    const entry = await log('denied', { reason: 'thirdPartyError', notes: why.notes });
    throw serviceUnavailable(why.message, { reason: why.reason, resourceLog: entry.id });
  }
  // An open interlock (the lid, the extraction) as the agent last reported it (bridge-inputs.ts).
  const interlock = await interlockAt(facts.request.reads, resource.id);
  if (interlock !== null) {
    const message = interlockMessage(interlock);
    const entry = await log('denied', { reason: 'interlock', notes: message });
    throw denied('interlock', entry.id, message, { details: { interlock } });
  }

  const outcome = await runSwitchOn(
    ctx,
    { resource, member, at, maxDuration: decision.maxDuration },
    timeoutMs,
  );
  ctx.signals.changed(resource.id);
  if (outcome.ok) return outcome.result;
  const data = { reason: outcome.kind, resourceLog: outcome.resourceLog };
  if (outcome.kind === 'noReply') throw gatewayTimeout(outcome.notes, data);
  throw new HttpError(502, outcome.notes, data);
}

/** The label of the resource's first open interlock as its agent last reported it, else null. */
export async function interlockAt(reads: FastReads, resourceId: number): Promise<string | null> {
  return openInterlock(await bridgeInputsRow(reads, resourceId));
}

/** Why no command reaches a resource's bridge (none holds a connection to the broker). */
export const unreachableWords = {
  bridgeOffline: 'The bridge of this resource is offline',
  noRemoteSwitch:
    'The bridge of this resource connects over HTTP only and cannot be switched from here: use it at its reader',
} as const;

/**
 * A bridge with no broker connection: offline, or online through the HTTP bridge API alone (its
 * heartbeats keep it online, but the hub cannot reach a bridge that only polls). The same test
 * as GET /resources/{id}/access-check, so the verdict and the switch agree.
 */
async function unreachable(ctx: PolicyContext, resourceId: number) {
  const polls = (await bridgeOfflineFlag(ctx.storage.reads, resourceId)) === 0;
  const reason = polls ? ('noRemoteSwitch' as const) : ('bridgeOffline' as const);
  const notes = polls ? 'The bridge connects over HTTP only: no command reaches it' : 'The bridge is offline';
  return { reason, message: unreachableWords[reason], notes };
}

/** POST /resources/{id}/bridge/switch-off: ends the running machine session. */
export async function switchOff(
  ctx: PolicyContext,
  caller: Caller,
  resource: ResourceRow,
  admin: boolean,
  timeoutMs = SWITCH_ON_TIMEOUT_MS,
) {
  const running = await newestOpenSession(ctx.db, resource.id);
  if (!admin && running?.member !== caller.memberId) {
    throw forbidden('Only the member using the resource, or an admin, may switch it off');
  }
  if (!ctx.bridges.isOnline(resource.id)) {
    const why = await unreachable(ctx, resource.id);
    throw serviceUnavailable(why.message, { reason: why.reason });
  }
  const { expiresAt, waitMs } = commandDeadline(ctx, resource.id, timeoutMs);
  const reply = await ctx.bridges.sendCommand(
    resource.id,
    {
      id: randomUUID(),
      type: 'switchOff',
      ...(running ? { sessionId: String(running.id) } : {}),
      expiresAt,
    },
    waitMs,
  );
  if (!reply)
    throw gatewayTimeout(`No reply from the bridge within ${timeoutMs / 1000} s`, { reason: 'noReply' });
  if (!reply.ok)
    throw new HttpError(502, `The bridge could not switch: ${reply.error ?? 'unknown error'}`, {
      reason: 'bridgeError',
    });
  if (running) {
    // The stop, its resourceLog_updated event and the session's charge commit together.
    await ctx.events.transaction((trx) =>
      stopAndBill(
        trx,
        ctx,
        running.id,
        {
          stoppedAt: ctx.clock.now().toISOString(),
          stopType: 'normal',
          updatedBy: caller.memberId,
          at: ctx.clock.now().toISOString(),
        },
        { resource },
      ),
    );
    ctx.signals.changed(resource.id);
  }
  return { state: reply.state.relay, since: reply.state.since, resourceLog: running?.id ?? null };
}
