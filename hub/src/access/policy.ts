import type { DenyReason } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { executorReads, type FastReads } from '../db/fast-reads.js';
import { spaceZone } from './access.repository.js';
import type { MembersTable, ResourcesTable } from '../db/schema.js';
import type { HubContext } from '../context.js';

export type ResourceRow = Selectable<ResourcesTable>;
export type MemberRow = Selectable<MembersTable>;

/** What is asked: may this member (holding this key) use this resource at this time? */
export interface AccessRequest {
  db: Db;
  /** Hot-path reads (db/fast-reads.ts); built from `db` when not given. */
  reads?: FastReads;
  /** Facts already loaded for this request (see `once`); the caller may share its own. */
  memo?: Map<string, Promise<unknown>>;
  resource: ResourceRow;
  /** null when a card was tapped that belongs to nobody. */
  member: MemberRow | null;
  /** The key used (card taps); undefined for switch-on from the API. */
  key?: { state: string } | null;
  at: Date;
}

/** A rule denies, or allows with an optional limit on the session's length (seconds). */
export type RuleOutcome = Denial | { maxDuration: number | null } | undefined;

/**
 * A rule's denial. `until` says when the reason ends if a rule knows it (the space opens, the
 * holiday or someone's booking ends); `details` carries what a person needs to act on it (the
 * training courses that would allow the resource). The machine page shows both in words.
 */
export interface Denial {
  deny: DenyReason;
  message?: string;
  until?: Date | null;
  details?: Record<string, unknown>;
}

export interface AccessRule {
  name: string;
  /** Position in DESIGN 5's order; see ruleOrder. Lower runs first. */
  order: number;
  /** Admins and owners pass this rule (package, training and time rules do; a locked resource does not). */
  adminsPass: boolean;
  check(request: RuleRequest): Promise<RuleOutcome> | RuleOutcome;
}

/** What a rule receives: the request, the fast reads, and facts shared between rules. */
export interface RuleRequest extends AccessRequest {
  reads: FastReads;
  memo: Map<string, Promise<unknown>>;
}

/**
 * Loads a fact once per request: rules that need the same fact (the space's time zone, the
 * member's packages, the resource's bookings) share one read.
 */
export function once<T>(
  request: Pick<AccessRequest, 'memo'> & { memo: Map<string, Promise<unknown>> },
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  let fact = request.memo.get(key) as Promise<T> | undefined;
  if (!fact) {
    fact = load();
    request.memo.set(key, fact);
  }
  return fact;
}

/** The space's time zone (UTC when unknown), once per request. */
export function zoneOf(request: RuleRequest): Promise<string> {
  return once(request, 'zone', async () => {
    return (await spaceZone(request.reads, request.resource.space)) ?? 'UTC';
  });
}

/** The order of DESIGN 5; areas insert their rules at these positions. */
export const ruleOrder = {
  resourceState: 10,
  memberState: 20,
  keyState: 30,
  training: 40,
  package: 50,
  timeTable: 55,
  prepaidBalance: 58,
  openingHours: 60,
  holiday: 70,
  booking: 80,
  tooManyAttempts: 90,
} as const;

export type Decision =
  | { allowed: true; maxDuration: number | null }
  | {
      allowed: false;
      reason: DenyReason;
      message: string;
      /** When the reason ends, if known (ISO time). */
      until?: string;
      details?: Record<string, unknown>;
    };

const messages: Partial<Record<DenyReason, string>> = {
  inactive: 'This resource is locked',
  memberInactive: 'Your membership is not active',
  unknownMember: 'Unknown member',
  unknownKey: 'Unknown key card',
  keyInactive: 'This key card is not active',
  noPermission: 'You need the training for this resource',
  noPackage: 'None of your packages allows this resource',
  timeTable: 'Your package does not allow this resource at this time',
  prepaidBalance: 'Your prepaid balance is too low',
  openingHours: 'The space is closed now',
  holiday: 'The space is closed for a holiday',
  booking: 'Someone else has booked this resource now',
  requiresBooking: 'This resource must be booked before use',
  tooManyAttempts: 'Too many failed attempts; try again later',
  wrongCode: 'Wrong switch-on code',
  staleCode: 'This sticker is out of date: the switch-on code has changed',
  occupancyFull: 'The space is full; wait until someone checks out',
};

export function denyMessage(reason: DenyReason): string {
  return messages[reason] ?? `Access denied (${reason})`;
}

/** The words of denyMessage that speak of "now", for times that are not now (access previews). */
const thenMessages: Partial<Record<DenyReason, string>> = {
  timeTable: 'Their package does not allow this resource at that time',
  openingHours: 'The space is closed at that time',
  booking: 'Someone else has booked this resource at that time',
};

/** Why access is denied at a time to come or gone (access previews), rather than now. */
export function denyMessageThen(reason: DenyReason): string {
  return thenMessages[reason] ?? denyMessage(reason);
}

export function isPrivileged(member: MemberRow | null): boolean {
  return (
    member !== null &&
    (member.privileges === 'admin' || member.privileges === 'owner' || member.superuser === 1)
  );
}

/**
 * The one access decision (DESIGN 5), used by switch-on, card taps and the HTTP bridge API:
 * rules run in order, the first denial wins, and the allowed session lasts at most the
 * shortest maxDuration any rule gives.
 */
export class AccessPolicy {
  private readonly rules: AccessRule[];

  constructor(rules: AccessRule[]) {
    this.rules = [...rules].sort((a, b) => a.order - b.order);
  }

  get ruleNames(): string[] {
    return this.rules.map((r) => r.name);
  }

  async decide(input: AccessRequest): Promise<Decision> {
    const request: RuleRequest = {
      ...input,
      reads: input.reads ?? executorReads(input.db),
      memo: input.memo ?? new Map(),
    };
    const privileged = isPrivileged(request.member);
    let maxDuration: number | null = null;
    for (const rule of this.rules) {
      if (privileged && rule.adminsPass) continue;
      const outcome = await rule.check(request);
      if (!outcome) continue;
      if ('deny' in outcome) {
        return {
          allowed: false,
          reason: outcome.deny,
          message: outcome.message ?? denyMessage(outcome.deny),
          ...(outcome.until ? { until: outcome.until.toISOString() } : {}),
          ...(outcome.details ? { details: outcome.details } : {}),
        };
      }
      if (outcome.maxDuration !== null && (maxDuration === null || outcome.maxDuration < maxDuration)) {
        maxDuration = Math.max(0, Math.floor(outcome.maxDuration));
      }
    }
    return { allowed: true, maxDuration };
  }
}

/** The ports plus the access policy: what switch-on, card taps and the bridge API work with. */
export interface PolicyContext extends HubContext {
  /** The access decision of DESIGN 5 (switch-on, card taps, bridge API). */
  policy: AccessPolicy;
}
