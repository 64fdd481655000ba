import type { AccessReply, AccessRequest, DenyReason, KeyRead } from '@makerspace/shared';
import { denyMessage, type MemberRow, type ResourceRow } from '../access/policy.js';
import { interlockMessage, openInterlock } from './bridge-inputs.js';
import type { PolicyContext } from '../access/policy.js';
import { requiredRow, rowById } from '../db/records.js';
import { stopAndBill } from './bridge-messages.js';
import { bumpConfigVersion } from './bridges.repository.js';
import { insertLog } from './resource-logs.js';
import { claimAssignment } from '../keys/key-assignments.js';
import { keyByCard, putMemberKey } from '../keys/member-keys.js';
import {
  bridgeInputsRow,
  recordAttempt,
  unknownKeyAttempts,
  runningSessionLog,
  tapLog,
} from './sessions.repository.js';

/** Unknown cards at one resource: more than this many in the window are refused with tooManyAttempts. */
export const UNKNOWN_KEY_LIMIT = 10;
export const UNKNOWN_KEY_WINDOW_MS = 60_000;

const memberRef = (m: MemberRow) => ({ id: m.id, name: `${m.firstName} ${m.lastName ?? ''}`.trim() });

/**
 * A card tap at a bridge (`access`, DESIGN 5 and 7): finds the card's member in the resource's
 * account, lets the policy decide, writes the resource log and answers in Fabman's bridge access
 * shape. Unknown cards may complete a pending key assignment; a tap by the member of the running
 * machine session stops it; another allowed member takes the machine over. Denials never touch
 * the running session. Answers null when the resource is gone.
 */
export async function answerTap(
  ctx: PolicyContext,
  resourceId: number,
  request: AccessRequest,
): Promise<AccessReply | null> {
  const resource = await rowById(ctx.db, 'resources', resourceId);
  if (!resource) return null;
  const at = ctx.clock.now();
  const stamp = at.toISOString();
  const cards = request.keys;
  const metadata = { keys: cards.map((k) => ({ type: k.type, token: k.token })) };
  // The tap id names the log (its client id): a repeated tap gets the first decision, and the
  // agent's offline log of the same tap (when this answer came too late) is not stored twice.
  const clientId = request.tapId ?? null;
  if (clientId) {
    const first = await firstDecision(ctx, resource, clientId);
    if (first) return { ...first, id: request.id };
  }
  const base = logBase(resource, stamp, metadata, clientId);

  const key = await keyByCard(ctx.db, resource.account, cards);
  if (!key) return { ...(await unknownCard(ctx, resource, cards[0], at, base)), id: request.id };

  const member = await requiredRow(ctx.db, 'members', key.member);
  // A trainer may be waiting for this member's tap to record a training: the tap answers that.
  const claimed = await ctx.taps.claim(ctx, resource.id, member.id, at);
  if (claimed) return { id: request.id, type: 'message', member: memberRef(member), messages: [claimed] };
  return answerMember(
    ctx,
    resource,
    { member, key, metadata, clientId },
    request.id,
    request.currentSession,
    at,
  );
}

/** The answer already given to a tap (its log), or null for a new tap. */
async function firstDecision(
  ctx: PolicyContext,
  resource: ResourceRow,
  tapId: string,
): Promise<Omit<AccessReply, 'id'> | null> {
  const log = await tapLog(ctx.db, resource.id, tapId);
  if (!log) return null;
  const member =
    log.memberId !== null
      ? { id: log.memberId, name: `${log.firstName ?? ''} ${log.lastName ?? ''}`.trim() }
      : null;
  if (log.type === 'allowed') {
    return {
      type: 'allowed',
      // An offline decision's session is named by the tap id itself.
      sessionId: log.offline ? tapId : String(log.id),
      stopped: log.stoppedAt !== null,
      member,
    };
  }
  if (log.type === 'keyAssigned') {
    return { type: 'message', member, messages: [`Key assigned to ${member?.name ?? 'a member'}`] };
  }
  const reason = (log.reason ?? 'unknownKey') as DenyReason;
  return { type: 'denied', reason, messages: [denyMessage(reason)], member };
}

/** The fields every log of a tap at `resource` shares. */
function logBase<M extends Record<string, unknown> | null>(
  resource: ResourceRow,
  stamp: string,
  metadata: M,
  clientId: string | null,
) {
  return {
    account: resource.account,
    resource: resource.id,
    createdAt: stamp,
    updatedAt: stamp,
    metadata,
    clientId,
  };
}

/**
 * The member is known (by card, or named by an HTTP bridge): the running session's own member
 * stops it, otherwise the policy decides, the log is written and the reply says what happened.
 */
export async function answerMember(
  ctx: PolicyContext,
  resource: ResourceRow,
  who: {
    member: MemberRow;
    key?: { state: string };
    metadata: Record<string, unknown> | null;
    /** The tap id, stored as the log's client id. */
    clientId?: string | null;
  },
  requestId: string,
  currentSession: { id: string } | null,
  at = ctx.clock.now(),
): Promise<AccessReply> {
  const { member, key, metadata } = who;
  const request = { id: requestId, currentSession };
  const stamp = at.toISOString();
  const base = logBase(resource, stamp, metadata, who.clientId ?? null);
  const running =
    request.currentSession && resource.controlType !== 'door'
      ? await runningSessionLog(ctx.db, resource.id, request.currentSession.id)
      : undefined;

  // The session's own member ends it with a tap, whatever the rules say now (never trap a machine on).
  if (running && running.member === member.id) {
    await ctx.events.transaction((trx) =>
      stopAndBill(trx, ctx, running.id, { stoppedAt: stamp, stopType: 'normal', at: stamp }),
    );
    return {
      id: request.id,
      type: 'allowed',
      sessionId: request.currentSession?.id,
      stopped: true,
      member: memberRef(member),
    };
  }

  const policy = await ctx.policy.decide({
    db: ctx.db,
    reads: ctx.storage.reads,
    resource,
    member,
    key,
    at,
  });
  // A machine's open interlock refuses like a rule (bridge-inputs.ts).
  const interlock =
    policy.allowed && resource.controlType !== 'door'
      ? openInterlock(await bridgeInputsRow(ctx.storage.reads, resource.id))
      : null;
  const decision =
    interlock === null
      ? policy
      : { allowed: false as const, reason: 'interlock' as const, message: interlockMessage(interlock) };
  if (!decision.allowed) {
    await ctx.events.transaction((trx) =>
      insertLog(trx, {
        ...base,
        type: 'denied',
        member: member.id,
        stoppedAt: stamp,
        reason: decision.reason,
      }),
    );
    return deniedReply(request.id, decision.reason, decision.message, member);
  }

  const door = resource.controlType === 'door';
  const { log, presence } = await ctx.events.transaction(async (trx) => {
    if (running) {
      // Takeover: the other member's session ends now, this member's begins.
      await stopAndBill(trx, ctx, running.id, { stoppedAt: stamp, stopType: 'takeover', at: stamp });
    }
    const log = await insertLog(trx, {
      ...base,
      type: 'allowed',
      member: member.id,
      // Doors: the session is opened and closed at once.
      stoppedAt: door ? stamp : null,
      stopType: door ? 'normal' : null,
    });
    // An entrance checks the member in or out with the same commit as the log (presence/).
    const presence = door
      ? await ctx.presence.doorTapped(trx, {
          account: resource.account,
          space: resource.space,
          resource: resource.id,
          entrance: resource.entrance === 1,
          unlockMode: resource.unlockMode,
          member: member.id,
          at,
        })
      : null;
    return { log, presence };
  });
  // A firstIn door stays unlocked from its first entry: its agent hears of the window now.
  if (presence?.windowOpened)
    await bumpConfigVersion(ctx.db, resource.id)
      .then(() => ctx.bridges.publishConfig(resource.id))
      .catch((err) => ctx.logger.error({ err, resourceId: resource.id }, 'config publish failed'));
  const checkInWords = { in: 'Checked in', out: 'Checked out' } as const;
  return {
    id: request.id,
    type: 'allowed',
    sessionId: String(log.id),
    maxDuration: door ? null : decision.maxDuration,
    stopped: door,
    member: memberRef(member),
    ...(presence?.checkIn ? { messages: [checkInWords[presence.checkIn]] } : {}),
  };
}

function deniedReply(id: string, reason: DenyReason, message: string, member: MemberRow | null): AccessReply {
  return {
    id,
    type: 'denied',
    reason,
    messages: [message],
    member: member ? memberRef(member) : null,
  };
}

/** An unknown card: a pending key assignment takes it; otherwise denied, and counted against guessing. */
async function unknownCard(
  ctx: PolicyContext,
  resource: ResourceRow,
  card: KeyRead,
  at: Date,
  base: {
    account: number;
    resource: number;
    createdAt: string;
    updatedAt: string;
    metadata: Record<string, unknown>;
    clientId: string | null;
  },
): Promise<AccessReply> {
  const assigned = await ctx.events
    .transaction(async (trx) => {
      const assignment = await claimAssignment(trx, resource.id, card, at);
      if (!assignment) return null;
      const member = await requiredRow(trx, 'members', assignment.member);
      // One key per member: the new card replaces the old one.
      await putMemberKey(
        trx,
        member,
        { type: card.type, token: card.token, state: 'active' },
        assignment.createdBy,
        at.toISOString(),
      );
      await insertLog(trx, { ...base, type: 'keyAssigned', member: member.id, stoppedAt: base.createdAt });
      return member;
    })
    .catch((err) => {
      // Another tap won the same card or assignment at the same moment: treat as unknown.
      ctx.logger.warn({ err, resourceId: resource.id }, 'key assignment failed');
      return null;
    });
  if (assigned) {
    // The new key reaches the bridges' offline keys through its memberKey event.
    ctx.caches.counts.touch('members');
    return {
      id: '',
      type: 'message',
      member: memberRef(assigned),
      messages: [`Key assigned to ${memberRef(assigned).name}`],
    };
  }

  const since = new Date(at.getTime() - UNKNOWN_KEY_WINDOW_MS).toISOString();
  const reason = await ctx.db.transaction().execute(async (trx) => {
    const n = await unknownKeyAttempts(trx, resource.id, since);
    await recordAttempt(trx, { resource: resource.id, member: null, kind: 'unknownKey', at: base.createdAt });
    return n >= UNKNOWN_KEY_LIMIT ? ('tooManyAttempts' as const) : ('unknownKey' as const);
  });
  await ctx.events.transaction((trx) =>
    insertLog(trx, { ...base, type: 'denied', member: null, stoppedAt: base.createdAt, reason }),
  );
  return deniedReply('', reason, denyMessage(reason), null);
}
