import type { DenyReason } from '@makerspace/shared';
import { type Db, parseJson } from '../db/crud.js';
import { executorReads, type FastReads } from '../db/fast-reads.js';
import { unprocessable } from '../errors.js';
import { localDate, localDateTime, wallTime } from '../kernel/zoned-time.js';
import { ATTEMPT_WINDOW_MS } from './core.rules.js';
import { type AccessPolicy, denyMessageThen, type MemberRow, type ResourceRow } from './policy.js';
import {
  type PolicyInputRows,
  policyInputRows,
  simulatedMembers,
  simulatedResources,
} from './simulation.repository.js';

/*
 * Access simulations (docs/SIMULATIONS.md): the access policy itself decides, for each member
 * the change can reach, each resource and each time slot, once on the database as it is and
 * once with the proposed change written into the same transaction (which the caller rolls
 * back). Nothing here decides: the class keys (classKeys) know what the rules read, never what
 * they conclude; what differs is what the policy answers differently.
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

/** One decision's answer: null = allowed, else the denial reason. */
type Answer = DenyReason | null;

/** The answers of one state of the database: for member i and resource j, one answer per slot. */
interface Answers {
  of(member: number, resource: number): Answer[];
  decisions: number;
}

/** A read or a field the class keys below do not account for: the simulation decides one by one. */
class UnknownInput extends Error {}

/** The tables whose rows the class keys account for (see classKeys). */
const knownTables = new Set([
  'spaces',
  'access_attempts',
  'bookings',
  'member_trainings',
  'training_courses',
  'training_course_resources',
  'opening_hours',
  'holidays',
  'member_packages',
  'package_permissions',
  'check_ins',
]);
/** The member's and the resource's fields the class keys hold (`id` enters through the reads). */
const memberFields = [
  'state',
  'privileges',
  'superuser',
  'requireUpfrontPayment',
  'upfrontMinimumBalance',
] as const;
const resourceFields = [
  'space',
  'type',
  'state',
  'lockReason',
  'maxDuration',
  'requiresTraining',
  'mustBeBooked',
  'entrance',
] as const;

/** Reads that refuse (UnknownInput) a query of a table the class keys do not account for. */
function guardedReads(inner: FastReads): FastReads {
  const checked = new Set<string>();
  const check = (text: string) => {
    if (checked.has(text)) return;
    for (const m of text.matchAll(/\b(?:from|join)\s+"(\w+)"/gi)) {
      if (!knownTables.has(m[1])) throw new UnknownInput(`the policy reads ${m[1]}`);
    }
    checked.add(text);
  };
  return {
    rows: (text, params) => {
      check(text);
      return inner.rows(text, params);
    },
    first: (text, params) => {
      check(text);
      return inner.first(text, params);
    },
    tuples: (text, params) => {
      check(text);
      return inner.tuples(text, params);
    },
  };
}

/** A row whose fields other than `allowed` may not be read (UnknownInput). */
function guardedRow<T extends object>(row: T, allowed: readonly string[]): T {
  const fields = new Set(['id', ...allowed]);
  return new Proxy(row, {
    get(target, field, receiver) {
      if (typeof field === 'string' && !fields.has(field) && field in target)
        throw new UnknownInput(`the policy reads ${field}`);
      return Reflect.get(target, field, receiver);
    },
  });
}

/** A handle that notes its use (the prepaid balance is read through it, not the fast reads). */
function notingDb(db: Db, used: { db: boolean }): Db {
  return new Proxy(db, {
    get(target, field) {
      used.db = true;
      const value = Reflect.get(target, field, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** "HH:MM" -> seconds of the day. */
const clockSeconds = (time: string) => {
  const [h, m] = time.split(':').map(Number);
  return h * 3600 + m * 60;
};

/** How many of the sorted `bounds` are at or before `value`. */
function rank<T>(bounds: T[], value: T): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many of the sorted `bounds` are before `value`. */
function below<T>(bounds: T[], value: T): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const sortedUnique = <T>(values: T[]): T[] =>
  [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Equivalence classes of what the policy reads. Members with the same key get the same answer
 * for every resource and moment, so do resources with the same key for every member; within a
 * space, slots with the same key get the same answer for every member and resource. A key holds
 * every input of the policy's rules:
 *
 * - member: its state, privileges, prepaid settings (a member whose balance is read is its own
 *   class); its packages (package, and where its dates fall among the slots' local dates: the
 *   permissions are the package's); its trainings (course, and the same of its dates); the
 *   spaces it is checked in to; its own class when it has bookings or wrong switch-on codes
 *   (rules compare those with its id);
 * - resource: the fields the rules read, the active courses that cover it, the permissions that
 *   name it; its own class when it has bookings or wrong codes;
 * - slot (per space, in its time zone): the local date (package, training dates; the weekday),
 *   which of the clock times of the opening hours and of every package time table it is past,
 *   which of the holidays' start and end, and (per member and resource) which of their bookings'
 *   start and end and the end of their wrong codes' window.
 *
 * The policy runs for one member, resource and slot of each class, through reads that refuse a
 * table the keys do not account for and rows that refuse a field they do not hold (UnknownInput).
 */
function classKeys(inputs: PolicyInputRows, members: MemberRow[], resources: ResourceRow[], slots: Date[]) {
  const group = <T extends { member?: number | null; resource?: number | null }>(
    rows: T[],
    by: 'member' | 'resource',
  ) => {
    const out = new Map<number, T[]>();
    for (const row of rows) {
      const id = row[by];
      if (id === null || id === undefined) continue;
      let list = out.get(id);
      if (!list) {
        list = [];
        out.set(id, list);
      }
      list.push(row);
    }
    return out;
  };
  const packages = group(inputs.memberPackages, 'member');
  const trainings = group(inputs.memberTrainings, 'member');
  const checkIns = group(inputs.checkIns, 'member');
  const bookingsOfMember = group(inputs.bookings, 'member');
  const bookingsOfResource = group(inputs.bookings, 'resource');
  const codesOfMember = group(inputs.wrongCodes, 'member');
  const codesOfResource = group(inputs.wrongCodes, 'resource');
  const courses = group(inputs.courseResources, 'resource');
  const named = group(inputs.resourcePermissions, 'resource');
  const codeWindowEnd = (at: string) => Date.parse(at) + ATTEMPT_WINDOW_MS;
  // Instants at which a member's or a resource's bookings and wrong codes change an answer.
  const instants = (
    bookings: PolicyInputRows['bookings'] | undefined,
    codes: PolicyInputRows['wrongCodes'] | undefined,
  ) => {
    const bounds = sortedUnique([
      ...(bookings ?? []).flatMap((b) => [Date.parse(b.fromDateTime), Date.parse(b.untilDateTime)]),
      ...(codes ?? []).map((c) => codeWindowEnd(c.at)),
    ]);
    return slots.map((at) => rank(bounds, at.getTime()));
  };
  const sorted = (values: string[]) => values.sort().join(',');
  // A package's or training's dates count only as the rules compare them with the slot's local
  // date (from <= date <= until): by where they fall among the local dates of the slots, in the
  // time zone of every space asked about. Members who joined on different days before the range
  // are alike for it. In a zone the runtime does not know, the dates themselves.
  const spaces = [...new Set(resources.map((r) => r.space))];
  let dates: string[] | null;
  try {
    dates = sortedUnique(
      spaces.flatMap((space) => {
        const zone = inputs.spaces.find((s) => s.id === space)?.timezone ?? 'UTC';
        return slots.map((at) => localDate(at, zone));
      }),
    );
  } catch {
    dates = null;
  }
  const span = (from: string | null, until: string | null) =>
    dates === null
      ? `${from}:${until}`
      : `${from === null ? 0 : below(dates, from)}:${until === null ? dates.length : rank(dates, until)}`;
  const memberKeys = members.map((m) => {
    const own =
      m.requireUpfrontPayment === 1 || bookingsOfMember.has(m.id) || codesOfMember.has(m.id) ? m.id : 0;
    return JSON.stringify([
      memberFields.map((f) => m[f]),
      own,
      sorted((packages.get(m.id) ?? []).map((p) => `${p.package}:${span(p.fromDate, p.untilDate)}`)),
      sorted((trainings.get(m.id) ?? []).map((t) => `${t.trainingCourse}:${span(t.fromDate, t.untilDate)}`)),
      sorted((checkIns.get(m.id) ?? []).map((c) => String(c.space))),
    ]);
  });
  const resourceKeys = resources.map((r) => {
    const own = bookingsOfResource.has(r.id) || codesOfResource.has(r.id) ? r.id : 0;
    return JSON.stringify([
      resourceFields.map((f) => r[f]),
      own,
      sorted((courses.get(r.id) ?? []).map((c) => String(c.course))),
      sorted((named.get(r.id) ?? []).map((p) => String(p.id))),
    ]);
  });
  const memberInstants = (m: MemberRow) => instants(bookingsOfMember.get(m.id), codesOfMember.get(m.id));
  const resourceInstants = (r: ResourceRow) =>
    instants(bookingsOfResource.get(r.id), codesOfResource.get(r.id));

  // Per space: the slots' keys in its time zone.
  const timeTables = inputs.permissionTimes.flatMap((p) =>
    (parseJson<{ fromTime: string; untilTime: string }[]>(p.times) ?? []).flatMap((w) => [
      clockSeconds(w.fromTime),
      clockSeconds(w.untilTime),
    ]),
  );
  const slotKeys = new Map<number, string[]>();
  for (const space of new Set(resources.map((r) => r.space))) {
    const zone = inputs.spaces.find((s) => s.id === space)?.timezone ?? 'UTC';
    const clock = sortedUnique([
      ...timeTables,
      ...inputs.openingHours
        .filter((h) => h.space === space)
        .flatMap((h) => [clockSeconds(h.fromTime), clockSeconds(h.untilTime)]),
    ]);
    const holidays = sortedUnique(
      inputs.holidays.filter((h) => h.space === space).flatMap((h) => [h.fromDateTime, h.untilDateTime]),
    );
    let keys: string[];
    try {
      keys = slots.map((at) => {
        const wall = wallTime(at, zone);
        const second = wall.hour * 3600 + wall.minute * 60 + wall.second;
        return `${localDate(at, zone)}|${rank(clock, second)}|${rank(holidays, localDateTime(at, zone))}`;
      });
    } catch {
      // A zone the runtime does not know: every slot is its own.
      keys = slots.map((_, s) => String(s));
    }
    slotKeys.set(space, keys);
  }
  return { memberKeys, resourceKeys, memberInstants, resourceInstants, slotKeys };
}

/** Indexes of equal keys: the class of each item, and each class's first item. */
function classesOf(keys: string[]) {
  const index = new Map<string, number>();
  const classOf = new Int32Array(keys.length);
  const first: number[] = [];
  keys.forEach((key, i) => {
    let c = index.get(key);
    if (c === undefined) {
      c = first.length;
      index.set(key, c);
      first.push(i);
    }
    classOf[i] = c;
  });
  return { classOf, first };
}

const tooLarge = (
  members: MemberRow[],
  resources: ResourceRow[],
  slots: Date[],
  decisions: number,
  maxDecisions: number,
) =>
  unprocessable(
    `This change reaches ${members.length} members and ${resources.length} resources: ${decisions} distinct decisions or more over ${slots.length} slots, more than the ${maxDecisions} a simulation may take. Ask about fewer (members, resources), a shorter range or longer slots.`,
    {
      tooLarge: {
        members: members.length,
        resources: resources.length,
        slots: slots.length,
        decisions,
        maxDecisions,
      },
    },
  );

/** A turn of the event loop now and then (SQLite's reads are synchronous). */
const breather = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The policy's answers for every member x resource x slot, deciding once per class of member,
 * class of resource and class of slot (classKeys).
 */
async function decideByClass(
  policy: AccessPolicy,
  db: Db,
  inner: FastReads,
  inputs: PolicyInputRows,
  members: MemberRow[],
  resources: ResourceRow[],
  slots: Date[],
  budget: { spent: number; max: number },
): Promise<Answers> {
  const keys = classKeys(inputs, members, resources, slots);
  const m = classesOf(keys.memberKeys);
  const r = classesOf(keys.resourceKeys);
  // Per member class x resource class: each slot's group (slots with the same key), and each group's first slot.
  const plans: { group: Int32Array; firsts: number[] }[] = [];
  let decisions = 0;
  const memberInstants = m.first.map((i) => keys.memberInstants(members[i]));
  for (let mc = 0; mc < m.first.length; mc++) {
    for (let rc = 0; rc < r.first.length; rc++) {
      const resource = resources[r.first[rc]];
      const spaceKeys = keys.slotKeys.get(resource.space) as string[];
      const resourceInstants = keys.resourceInstants(resource);
      const { classOf: group, first: firsts } = classesOf(
        slots.map((_, s) => `${spaceKeys[s]}|${memberInstants[mc][s]}|${resourceInstants[s]}`),
      );
      decisions += firsts.length;
      if (budget.spent + decisions > budget.max)
        throw tooLarge(members, resources, slots, budget.spent + decisions, budget.max);
      plans.push({ group, firsts });
    }
    if (mc % 50 === 49) await breather();
  }

  const reads = guardedReads(rememberingReads(inner));
  const used = { db: false };
  const noting = notingDb(db, used);
  const vectors: Answer[][] = [];
  let asked = 0;
  for (let mc = 0; mc < m.first.length; mc++) {
    const row = members[m.first[mc]];
    const member = guardedRow(row, memberFields);
    for (let rc = 0; rc < r.first.length; rc++) {
      const resource = guardedRow(resources[r.first[rc]], resourceFields);
      const plan = plans[mc * r.first.length + rc];
      const answers: Answer[] = [];
      for (const s of plan.firsts) {
        used.db = false;
        const decision = await policy.decide({ db: noting, reads, resource, member, at: slots[s] });
        // The prepaid balance is read through the handle: only a member that is its own class may.
        if (used.db && row.requireUpfrontPayment !== 1) throw new UnknownInput('the policy reads through db');
        answers.push(decision.allowed ? null : decision.reason);
        if (++asked % 2000 === 0) await breather();
      }
      const vector = new Array<Answer>(slots.length);
      for (let s = 0; s < slots.length; s++) vector[s] = answers[plan.group[s]];
      vectors.push(vector);
    }
  }
  const rc = r.first.length;
  return {
    of: (i, j) => vectors[m.classOf[i] * rc + r.classOf[j]],
    decisions,
  };
}

/** The policy's answer for every member x resource x slot, one by one (when a class key cannot be trusted). */
async function decideEach(
  policy: AccessPolicy,
  db: Db,
  inner: FastReads,
  members: MemberRow[],
  resources: ResourceRow[],
  slots: Date[],
  budget: { spent: number; max: number },
): Promise<Answers> {
  const total = members.length * resources.length * slots.length;
  if (budget.spent + total > budget.max)
    throw tooLarge(members, resources, slots, budget.spent + total, budget.max);
  const reads = rememberingReads(inner);
  const vectors: Answer[][] = members.flatMap(() => resources.map(() => new Array<Answer>(slots.length)));
  let asked = 0;
  // One moment at a time: the rules' wall-time arithmetic and the slot's reads are shared by all.
  for (let s = 0; s < slots.length; s++) {
    const at = slots[s];
    for (let m = 0; m < members.length; m++) {
      for (let r = 0; r < resources.length; r++) {
        const decision = await policy.decide({ db, reads, resource: resources[r], member: members[m], at });
        vectors[m * resources.length + r][s] = decision.allowed ? null : decision.reason;
        if (++asked % 2000 === 0) await breather();
      }
    }
  }
  return { of: (i, j) => vectors[i * resources.length + j], decisions: total };
}

/** By class, or one by one when the policy reads what the class keys do not hold. */
async function decisions(
  input: AccessComparisonInput,
  inner: FastReads,
  members: MemberRow[],
  resources: ResourceRow[],
  spent: number,
): Promise<Answers> {
  const { policy, trx, slots } = input;
  const budget = { spent, max: input.maxDecisions };
  if (slots.length > 0 && members.length > 0 && resources.length > 0) {
    const inputs = await policyInputRows(
      trx,
      input.account,
      members.map((m) => m.id),
      resources.map((r) => r.id),
      [...new Set(resources.map((r) => r.space))],
      slots[0].toISOString(),
      new Date(slots[0].getTime() - ATTEMPT_WINDOW_MS).toISOString(),
    );
    try {
      return await decideByClass(policy, trx, inner, inputs, members, resources, slots, budget);
    } catch (err) {
      if (!(err instanceof UnknownInput)) throw err;
    }
  }
  return decideEach(policy, trx, inner, members, resources, slots, budget);
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
  const { trx, account, slots, slotMs } = input;
  const members = await simulatedMembers(trx, account, input.members);
  const only = input.resources ? new Set(input.resources) : null;
  const resources = (await simulatedResources(trx, account, input.space)).filter(
    (r) => !only || only.has(r.id),
  );
  const reads = input.reads ?? (() => executorReads(trx));
  const before = await decisions(input, reads(), members, resources, 0);
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
  // The budget counts the decisions of both states.
  const after = await decisions(input, reads(), afterMembers, afterResources, before.decisions);

  // What differs, once per pair of answer lists (members and resources of a class share theirs).
  interface Difference {
    gains: SimulatedSlot[];
    loses: SimulatedSlot[];
    reason: DenyReason;
    message: string;
  }
  const compared = new Map<Answer[], Map<Answer[], Difference | null>>();
  const compare = (was: Answer[], is: Answer[]): Difference | null => {
    let byAfter = compared.get(was);
    if (!byAfter) {
      byAfter = new Map();
      compared.set(was, byAfter);
    }
    const known = byAfter.get(is);
    if (known !== undefined) return known;
    const gained: number[] = [];
    const lost: number[] = [];
    let gainReason: DenyReason | null = null;
    let loseReason: DenyReason | null = null;
    for (let s = 0; s < slots.length; s++) {
      if (was[s] !== null && is[s] === null) {
        gained.push(s);
        gainReason ??= was[s];
      } else if (was[s] === null && is[s] !== null) {
        lost.push(s);
        loseReason ??= is[s];
      }
    }
    let difference: Difference | null = null;
    if (gained.length > 0 || lost.length > 0) {
      const words = [
        ...(lost.length > 0 ? [`loses: ${denyMessageThen(loseReason as DenyReason)}`] : []),
        ...(gained.length > 0 ? [`gains: no longer “${denyMessageThen(gainReason as DenyReason)}”`] : []),
      ];
      difference = {
        gains: stretches(gained, slots, slotMs),
        loses: stretches(lost, slots, slotMs),
        reason: (loseReason ?? gainReason) as DenyReason,
        message: words.join('; '),
      };
    }
    byAfter.set(is, difference);
    return difference;
  };
  const changes: SimulatedChange[] = [];
  for (let i = 0; i < members.length; i++) {
    const member = members[i];
    const memberName = nameOf(member);
    for (let j = 0; j < resources.length; j++) {
      const difference = compare(before.of(i, j), after.of(i, j));
      if (!difference) continue;
      changes.push({
        member: member.id,
        memberName,
        resource: resources[j].id,
        resourceName: resources[j].name,
        ...difference,
      });
    }
  }
  return {
    members: members.length,
    resources: resources.length,
    slots: slots.length,
    decisions: before.decisions + after.decisions,
    changes,
  };
}
