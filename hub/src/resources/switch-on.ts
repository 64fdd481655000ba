import { randomUUID } from 'node:crypto';
import type { DenyReason } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import type { Db } from '../db/crud.js';
import { chargeForStoppedSession } from '../billing/charges.js';
import type { Caller } from '../http/auth.js';
import {
  forbidden,
  gatewayTimeout,
  HttpError,
  notFound,
  serviceUnavailable,
  tooManyRequests,
} from '../http/errors.js';
import { WRONG_CODE_LIMIT, wrongCodeCount } from '../access/core.rules.js';
import { denyMessage, type MemberRow } from '../access/policy.js';
import { codeMatches } from './codes.js';
import { insertLog, stopLog } from './resource-logs.js';
import { inCallersAccount, type ResourceRow } from './resources.js';
import { commandDeadline, runSwitchOn, type SwitchOnResult } from './switch-sessions.js';

export const SWITCH_ON_TIMEOUT_MS = 5_000;

export type { SwitchOnResult } from './switch-sessions.js';

function denied(reason: DenyReason, logId: number, message = denyMessage(reason)): HttpError {
  const data = { reason, resourceLog: logId };
  return reason === 'tooManyAttempts' ? tooManyRequests(message, data) : forbidden(message, data);
}

/**
 * POST /resources/{id}/switch-on (DESIGN 6): the code proves the member stands at the machine,
 * the policy decides, and the agent switches the relay. Every outcome writes a resource log.
 */
export async function switchOn(
  ctx: HubContext,
  caller: Caller,
  resourceId: number,
  code: string,
  timeoutMs = SWITCH_ON_TIMEOUT_MS,
): Promise<SwitchOnResult> {
  // The hot path reads through the fast reads (committed data, no query builder).
  const reads = ctx.storage.reads;
  const [resource, member] = await Promise.all([
    reads.first<ResourceRow>('select * from "resources" where "id" = ?', [resourceId]),
    reads.first<MemberRow>('select * from "members" where "id" = ?', [caller.memberId]),
  ]);
  if (!resource || !inCallersAccount(caller, resource)) throw notFound('Resource');
  if (!member) throw notFound('Member');
  const at = ctx.clock.now();
  const request = { db: ctx.db, reads, memo: new Map<string, Promise<unknown>>(), resource, member, at };
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
          updatedBy: member.id,
        },
        { resource, member },
      );
    });

  // Too many wrong codes lock the member out of this resource for the window, right code or not.
  if ((await wrongCodeCount(request)) >= WRONG_CODE_LIMIT) {
    const entry = await log('denied', { reason: 'tooManyAttempts' });
    throw denied('tooManyAttempts', entry.id);
  }
  const secret = ctx.tokens.open(resource.switchOnCodeEncrypted);
  if (!codeMatches(resource.codeMode, secret, code, at)) {
    const entry = await log('denied', { reason: 'wrongCode' }, (trx) =>
      trx
        .insertInto('access_attempts')
        .values({ resource: resource.id, member: member.id, kind: 'wrongCode', at: at.toISOString() })
        .execute(),
    );
    throw denied('wrongCode', entry.id);
  }

  const decision = await ctx.policy.decide(request);
  if (!decision.allowed) {
    const entry = await log('denied', { reason: decision.reason });
    throw denied(decision.reason, entry.id, decision.message);
  }

  if (!ctx.bridges.isOnline(resource.id)) {
    const entry = await log('denied', { reason: 'thirdPartyError', notes: 'The bridge is offline' });
    throw serviceUnavailable('The bridge of this resource is offline', {
      reason: 'bridgeOffline',
      resourceLog: entry.id,
    });
  }

  const outcome = await runSwitchOn(
    ctx,
    { resource, member, at, maxDuration: decision.maxDuration },
    timeoutMs,
  );
  if (outcome.ok) return outcome.result;
  const data = { reason: outcome.kind, resourceLog: outcome.resourceLog };
  if (outcome.kind === 'noReply') throw gatewayTimeout(outcome.notes, data);
  throw new HttpError(502, outcome.notes, data);
}

/** POST /resources/{id}/bridge/switch-off: ends the running machine session. */
export async function switchOff(
  ctx: HubContext,
  caller: Caller,
  resource: ResourceRow,
  admin: boolean,
  timeoutMs = SWITCH_ON_TIMEOUT_MS,
) {
  const running = await ctx.db
    .selectFrom('resource_logs')
    .select(['id', 'member'])
    .where('resource', '=', resource.id)
    .where('type', '=', 'allowed')
    .where('stoppedAt', 'is', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!admin && running?.member !== caller.memberId) {
    throw forbidden('Only the member using the resource, or an admin, may switch it off');
  }
  if (!ctx.bridges.isOnline(resource.id))
    throw serviceUnavailable('The bridge of this resource is offline', { reason: 'bridgeOffline' });
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
    await ctx.events.transaction(async (trx) => {
      const stopped = await stopLog(
        trx,
        running.id,
        { stoppedAt: ctx.clock.now().toISOString(), stopType: 'normal' },
        { resource },
      );
      if (stopped) await chargeForStoppedSession(trx, ctx, running.id);
    });
  }
  return { state: reply.state.relay, since: reply.state.since, resourceLog: running?.id ?? null };
}
