import type { DenyReason } from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import { executorReads, type FastReads } from '../db/fast-reads.js';
import { unprocessable } from '../errors.js';
import { type AccessPolicy, denyMessage, type MemberRow, type ResourceRow } from './policy.js';
import { simulatedMembers, simulatedResources } from './simulation.repository.js';

/*
 * Access simulations (docs/SIMULATIONS.md): the access policy itself decides, for each member
 * the change can reach, each resource and each time slot, once on the database as it is and
 * once with the proposed change written into the same transaction (which the caller rolls
 * back). Nothing here knows a rule: what differs is what the policy answers differently.
 */

export interface SimulatedSlot {
  from: string;
  until: string;
}

export interface SimulatedChange {
  member: number;
  memberName: string;
  resource: number;
  resourceName: string;
  gains: SimulatedSlot[];
  loses: SimulatedSlot[];
  reason: string;
  message: string;
}

export interface AccessComparison {
  members: number;
  resources: number;
  slots: number;
  decisions: number;
  changes: SimulatedChange[];
}

export interface AccessComparisonInput {
  policy: AccessPolicy;
  /** The transaction the change is written in; the caller rolls it back. */
  trx: Db;
  account: number;
  /** The members the change can reach (null: every member of the account). */
  members: number[] | null;
  /** Only this space's resources (null: all of the account's). */
  space: number | null;
  /** Only these resources (the caller narrowed the question). */
  resources?: number[];
  /** The most decisions (members x resources x slots, twice) it may ask for; more is a 422. */
  maxDecisions: number;
  /** The start of each time slot; the policy decides at each. */
  slots: Date[];
  slotMs: number;
  /** Writes the proposed change into `trx`. */
  apply(trx: Db): Promise<void>;
  /**
   * Reads that see `trx`'s own changes (default: through it). On SQLite, prepared statements on
   * the connection that holds the transaction do, and cost a tenth.
   */
  reads?: () => FastReads;
}

/**
 * Reads that remember their answers: within one state of the database (before, or after the
 * change) the same query answers the same, so each is run once for all members, resources and
 * slots. Arrays are handed out as copies, so a rule that sorts its rows cannot touch the next's.
 */
export function rememberingReads(inner: FastReads): FastReads {
  // By text, then by parameters: the texts are long, the parameters a few ids and times.
  const answers = new Map<string, Map<string, Promise<unknown>>>();
  const remember = <T>(kind: string, text: string, params: readonly unknown[], run: () => Promise<T>) => {
    let byParams = answers.get(kind + text);
    if (!byParams) {
      byParams = new Map();
      answers.set(kind + text, byParams);
    }
    const key = JSON.stringify(params);
    let answer = byParams.get(key) as Promise<T> | undefined;
    if (!answer) {
      answer = run();
      byParams.set(key, answer);
    }
    return answer;
  };
  return {
    rows: async (text, params) =>
      [...(await remember('r', text, params, () => inner.rows(text, params)))] as any,
    first: (text, params) => remember('f', text, params, () => inner.first(text, params)) as any,
    tuples: async (text, params) =>
      [...(await remember('t', text, params, () => inner.tuples(text, params)))] as any,
  };
}

/** The policy's answer for every member x resource x slot: null = allowed, else the denial reason. */
async function decisions(
  policy: AccessPolicy,
  db: Db,
  inner: FastReads,
  members: MemberRow[],
  resources: ResourceRow[],
  slots: Date[],
): Promise<(DenyReason | null)[]> {
  const reads = rememberingReads(inner);
  const out: (DenyReason | null)[] = new Array(members.length * resources.length * slots.length);
  let asked = 0;
  // One moment at a time: the rules' wall-time arithmetic and the slot's reads are shared by all.
  for (let s = 0; s < slots.length; s++) {
    const at = slots[s];
    for (let m = 0; m < members.length; m++) {
      for (let r = 0; r < resources.length; r++) {
        const decision = await policy.decide({ db, reads, resource: resources[r], member: members[m], at });
        out[(m * resources.length + r) * slots.length + s] = decision.allowed ? null : decision.reason;
        // SQLite's reads are synchronous: without a turn of the event loop now and then, the
        // hub would answer nothing else (reads on its second connection, the live channels) meanwhile.
        if (++asked % 2000 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
  return out;
}

/** Consecutive slots joined into one stretch. */
function stretches(indexes: number[], slots: Date[], slotMs: number): SimulatedSlot[] {
  const out: SimulatedSlot[] = [];
  let start = -1;
  let last = -1;
  const close = () => {
    if (start < 0) return;
    out.push({
      from: slots[start].toISOString(),
      until: new Date(slots[last].getTime() + slotMs).toISOString(),
    });
  };
  for (const i of indexes) {
    if (start >= 0 && i === last + 1 && slots[i].getTime() === slots[last].getTime() + slotMs) {
      last = i;
      continue;
    }
    close();
    start = i;
    last = i;
  }
  close();
  return out;
}

const nameOf = (m: MemberRow) => [m.firstName, m.lastName].filter(Boolean).join(' ') || `#${m.id}`;

/**
 * Who gains and who loses which resource, and when, if `apply` were committed. Runs `apply`
 * in `trx`; the caller must roll `trx` back.
 */
export async function compareAccess(input: AccessComparisonInput): Promise<AccessComparison> {
  const { policy, trx, account, slots, slotMs } = input;
  const members = await simulatedMembers(trx, account, input.members);
  const only = input.resources ? new Set(input.resources) : null;
  const resources = (await simulatedResources(trx, account, input.space)).filter(
    (r) => !only || only.has(r.id),
  );
  const asked = members.length * resources.length * slots.length * 2;
  if (asked > input.maxDecisions) {
    throw unprocessable(
      `This change reaches ${members.length} members and ${resources.length} resources: ${asked} decisions over ${slots.length} slots, more than the ${input.maxDecisions} a simulation may take. Ask about fewer (members, resources), a shorter range or longer slots.`,
      {
        tooLarge: {
          members: members.length,
          resources: resources.length,
          slots: slots.length,
          decisions: asked,
          maxDecisions: input.maxDecisions,
        },
      },
    );
  }
  const reads = input.reads ?? (() => executorReads(trx));
  const before = await decisions(policy, trx, reads(), members, resources, slots);
  await input.apply(trx);
  // The rows as the change leaves them (the same ones: a simulated change adds or removes no member or resource).
  const membersAfter = new Map(
    (
      await simulatedMembers(
        trx,
        account,
        members.map((m) => m.id),
      )
    ).map((m) => [m.id, m]),
  );
  const resourcesAfter = new Map((await simulatedResources(trx, account, input.space)).map((r) => [r.id, r]));
  const afterMembers = members.map((m) => membersAfter.get(m.id) ?? { ...m, state: 'inactive' });
  const afterResources = resources.map((r) => resourcesAfter.get(r.id) ?? { ...r, state: 'inactive' });
  const after = await decisions(policy, trx, reads(), afterMembers, afterResources, slots);

  const changes: SimulatedChange[] = [];
  let i = 0;
  for (const member of members) {
    for (const resource of resources) {
      const gained: number[] = [];
      const lost: number[] = [];
      let gainReason: DenyReason | null = null;
      let loseReason: DenyReason | null = null;
      for (let s = 0; s < slots.length; s++, i++) {
        const was = before[i];
        const is = after[i];
        if (was !== null && is === null) {
          gained.push(s);
          gainReason ??= was;
        } else if (was === null && is !== null) {
          lost.push(s);
          loseReason ??= is;
        }
      }
      if (gained.length === 0 && lost.length === 0) continue;
      const reason = (loseReason ?? gainReason) as DenyReason;
      const words = [
        ...(lost.length > 0 ? [`loses: ${denyMessage(loseReason as DenyReason)}`] : []),
        ...(gained.length > 0 ? [`gains: no longer “${denyMessage(gainReason as DenyReason)}”`] : []),
      ];
      changes.push({
        member: member.id,
        memberName: nameOf(member),
        resource: resource.id,
        resourceName: resource.name,
        gains: stretches(gained, slots, slotMs),
        loses: stretches(lost, slots, slotMs),
        reason,
        message: words.join('; '),
      });
    }
  }
  return {
    members: members.length,
    resources: resources.length,
    slots: slots.length,
    decisions: before.length + after.length,
    changes,
  };
}
