import { AccessSimulationRequest, AccessSimulationResult, OpeningHours } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { compareAccess } from '../access/simulation.js';
import {
  holdersOfCourse,
  holdersOfPackage,
  ownerOf,
  simulationZone,
} from '../access/simulation.repository.js';
import { ResourceSignals } from '../context.js';
import type { Db } from '../db/crud.js';
import { sqliteReads } from '../db/fast-reads.js';
import { badRequest, unprocessable } from '../errors.js';
import { type Collection, findIn, writeInTransaction } from '../http/collection.js';
import { adminRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import type { Caller } from '../kernel/caller.js';
import { wallTime } from '../kernel/zoned-time.js';
import { memberPackages } from './member-packages.routes.js';
import { packages } from './packages.collection.js';
import { packagePermissions } from './packages.routes.js';
import { writeOpeningHours } from './space-extras.routes.js';
import { holidays, spaces } from './spaces.routes.js';
import { trainingCourses } from './training-courses.routes.js';
import { memberTrainings } from './training.routes.js';
import { sendLargeJson } from '../http/large-json.js';

type Params = Record<string, number>;
type Part = 'create' | 'update' | 'remove';

/** A change the simulation understands: a collection's write, or a space's opening hours. */
interface Target {
  /** The path pattern, e.g. `/packages/:packageId/permissions`. */
  pattern: string;
  /** Which write each method is, at the pattern (create) or at the pattern plus an id. */
  writes: { method: 'POST' | 'PUT' | 'DELETE'; item: boolean; part: Part }[];
  collection?: Collection<any, any>;
  /** The members the change can reach (null: every member), read before the change. */
  reach(db: Db, params: Params, id: number | undefined, part: Part): Promise<number[] | null>;
  /** Only this space's resources are asked about (null: all of the account's). */
  space?(params: Params): number;
}

const collectionWrites = [
  { method: 'POST', item: false, part: 'create' },
  { method: 'PUT', item: true, part: 'update' },
  { method: 'DELETE', item: true, part: 'remove' },
] as const;

/** A collection's create, update and delete (POST at its path, PUT and DELETE at an item). */
function collectionTarget(
  collection: Collection<any, any>,
  reach: Target['reach'],
  space?: Target['space'],
): Target {
  return { pattern: collection.path, writes: [...collectionWrites], collection, reach, space };
}

const everyMember = async () => null;
const spaceOf = (params: Params) => params.spaceId;

/** What a change can reach, as the policy reads it: who holds the package, the course, the member's own. */
const targets: Target[] = [
  // A new package or course is held by nobody yet.
  collectionTarget(packages, async (db, _params, id, part) =>
    part === 'create' ? [] : holdersOfPackage(db, id as number),
  ),
  collectionTarget(packagePermissions, (db, params) => holdersOfPackage(db, params.packageId)),
  collectionTarget(trainingCourses, async (db, _params, id, part) =>
    part === 'create' ? [] : holdersOfCourse(db, id as number),
  ),
  collectionTarget(memberPackages, async (db, params, id) => memberOf(db, 'member_packages', params, id)),
  collectionTarget(memberTrainings, async (db, params, id) => memberOf(db, 'member_trainings', params, id)),
  collectionTarget(holidays, everyMember, spaceOf),
  {
    // The spec's singular spelling of a holiday's writes.
    pattern: '/space/:spaceId/holidays',
    writes: collectionWrites.filter((w) => w.item),
    collection: holidays,
    reach: everyMember,
    space: spaceOf,
  },
  {
    pattern: '/spaces/:spaceId/opening-hours',
    writes: [{ method: 'PUT', item: false, part: 'update' }],
    reach: everyMember,
    space: spaceOf,
  },
];

/** The member a member's package or training belongs to (the path's, as the write checks it). */
async function memberOf(
  db: Db,
  table: 'member_packages' | 'member_trainings',
  params: Params,
  id: number | undefined,
): Promise<number[]> {
  const owner = id === undefined ? null : await ownerOf(db, table, id);
  return [...new Set([params.memberId, ...(owner === null ? [] : [owner])])];
}

const supported =
  'POST, PUT or DELETE of /packages/{id}, /packages/{id}/permissions/{id}, /training-courses/{id}, /members/{id}/packages/{id}, /members/{id}/trainings/{id}, /spaces/{id}/holidays/{id}; PUT /spaces/{id}/opening-hours';

/** The target, write and path ids a proposed request names; 422 for what cannot be simulated. */
function matchRequest(method: string, rawPath: string) {
  const path = rawPath
    .split('?')[0]
    .replace(/^\/api\/v1(?=\/)/, '')
    .replace(/\/+$/, '');
  for (const target of targets) {
    const names = [...target.pattern.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const base = target.pattern.replace(/:\w+/g, '([0-9]+)');
    for (const write of target.writes) {
      if (write.method !== method) continue;
      const m = new RegExp(`^${base}${write.item ? '/([0-9]+)' : ''}$`).exec(path);
      if (!m) continue;
      const numbers = m.slice(1).map(Number);
      if (numbers.some((n) => !Number.isSafeInteger(n) || n < 1)) break;
      const params = Object.fromEntries(names.map((n, i) => [n, numbers[i]])) as Params;
      return { target, part: write.part, params, id: write.item ? numbers.at(-1) : undefined };
    }
  }
  throw unprocessable(
    `${method} ${rawPath} is not a change the simulation knows; it simulates ${supported}`,
    {
      unsupported: { method, path: rawPath },
    },
  );
}

/** The body checked as the route itself checks it (400 naming the field). */
function parseBody(schema: z.ZodType | undefined, body: unknown): unknown {
  if (!schema) {
    if (body !== undefined && body !== null) throw badRequest('body: this request takes no body');
    return undefined;
  }
  const parsed = schema.safeParse(body === undefined ? {} : body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({
    path: ['body', ...i.path].join('.'),
    message: i.message,
  }));
  throw badRequest(issues.map((i) => `${i.path}: ${i.message}`).join('; '), { validation: issues });
}

/**
 * The context the proposed write runs with: the hub's, with every port that would reach past
 * the transaction made inert (bridges, the live channel's signals, caches, mail, the event
 * bus's wake-ups), so a write that is rolled back leaves no trace anywhere.
 */
function quietContext(ctx: HubServices, trx: Db): HubServices {
  const events = Object.create(ctx.events) as HubServices['events'];
  Object.assign(events, {
    transaction: (fn: (t: Db) => Promise<unknown>) => fn(trx),
    grouped: (fn: (t: Db) => Promise<unknown>) => fn(trx),
    committed: () => {},
    accessChanged: () => {},
  });
  const bridges: HubServices['bridges'] = {
    isOnline: () => false,
    isRunning: () => false,
    clockOffsetMs: () => 0,
    sendCommand: async () => null,
    replyAwaited: async () => false,
    publishConfig: async () => {},
    publishUpdate: async () => {},
    disconnect: () => {},
    forget: async () => {},
  };
  const caches: HubServices['caches'] = {
    records: { get: () => undefined, set: () => {} },
    counts: { count: (_t, _k, compute) => compute(), touch: () => {} },
  };
  const quiet = Object.create(ctx) as HubServices;
  Object.assign(quiet, { db: trx, events, bridges, caches, signals: new ResourceSignals(), mailer: null });
  return quiet;
}

/** Rolls the simulation's transaction back once it has its answer. */
class RolledBack extends Error {}

const HOUR = 3_600_000;

/**
 * The most policy decisions one simulation may take (distinct ones: once per class of members,
 * resources and slots, both states): about seven seconds on a small server (docs/PERFORMANCE.md).
 * The transaction holds the SQLite writer, so other writes wait that long.
 */
export const MAX_DECISIONS = 250_000;

/** The members the change reaches, narrowed to those the caller asks about. */
function narrowed(reach: number[] | null, asked: number[] | undefined): number[] | null {
  if (!asked) return reach;
  if (reach === null) return asked;
  const wanted = new Set(asked);
  return reach.filter((m) => wanted.has(m));
}
const MAX_RANGE_MS = 31 * 24 * HOUR;

/** The slot starts: from `from` (default: the current hour of the space's clock) to `until` (default a week on). */
function slotsOf(body: z.output<typeof AccessSimulationRequest>, zone: string, now: Date) {
  const slotMs = body.slotMinutes * 60_000;
  let from: Date;
  if (body.from) from = new Date(body.from);
  else {
    const wall = wallTime(now, zone);
    from = new Date(now.getTime() - (wall.minute * 60 + wall.second) * 1000 - now.getUTCMilliseconds());
  }
  const until = body.until ? new Date(body.until) : new Date(from.getTime() + 7 * 24 * HOUR);
  if (until.getTime() <= from.getTime()) throw badRequest('until: must be after from');
  if (until.getTime() - from.getTime() > MAX_RANGE_MS) throw badRequest('until: at most 31 days after from');
  const slots: Date[] = [];
  for (let t = from.getTime(); t < until.getTime(); t += slotMs) slots.push(new Date(t));
  return { from, until, slotMs, slots };
}

/** Simulates the proposed request for the caller (an admin) and answers who gains and loses what. */
export async function simulateRequest(
  ctx: HubServices,
  caller: Caller,
  body: z.output<typeof AccessSimulationRequest>,
): Promise<AccessSimulationResult> {
  const { target, part, params, id } = matchRequest(body.method, body.path);
  const c = target.collection;
  const write = c ? (part === 'create' ? c.create : part === 'update' ? c.update : c.remove) : undefined;
  const schema = c ? (write as { body?: z.ZodType } | undefined)?.body : OpeningHours;
  const proposed = parseBody(part === 'remove' ? undefined : schema, body.body);
  const space = target.space?.(params) ?? null;
  let answer: AccessSimulationResult | undefined;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const quiet = quietContext(ctx, trx);
      // The space the path names, as its own route finds it (404 when the caller does not see it).
      if (space !== null) await findIn(spaces, quiet, caller, {}, space, trx);
      const zone = await simulationZone(trx, caller.accountId, space);
      const { from, until, slotMs, slots } = slotsOf(body, zone.zone, ctx.clock.now());
      const comparison = await compareAccess({
        policy: ctx.policy,
        trx,
        account: caller.accountId,
        members: narrowed(await target.reach(trx, params, id, part), body.members),
        space,
        resources: body.resources,
        maxDecisions: MAX_DECISIONS,
        slots,
        slotMs,
        // SQLite: the hub's one writing connection holds the transaction, so its prepared statements see the change.
        reads: ctx.storage.sqlite ? () => sqliteReads(ctx.storage.sqlite as never) : undefined,
        apply: async (t) => {
          if (c) {
            await writeInTransaction(c, t, quiet, caller, { part, params, id, body: proposed });
            return;
          }
          const row = await findIn(spaces, quiet, caller, {}, params.spaceId, t);
          const stamp = { at: ctx.clock.now().toISOString(), by: caller.memberId };
          await writeOpeningHours(t, row as never, proposed as never, stamp);
        },
      });
      answer = {
        from: from.toISOString(),
        until: until.toISOString(),
        slotMinutes: body.slotMinutes,
        timeZone: zone.zone,
        evaluated: {
          members: comparison.members,
          resources: comparison.resources,
          slots: comparison.slots,
          decisions: comparison.decisions,
        },
        changes: comparison.changes,
      };
      throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
  }
  return answer as AccessSimulationResult;
}

const example = {
  method: 'PUT',
  path: '/spaces/1/opening-hours',
  body: [
    { dayOfWeek: 1, fromTime: '09:00', untilTime: '22:00' },
    { dayOfWeek: 6, fromTime: '10:00', untilTime: '18:00' },
  ],
};

/**
 * What the example answers for a space that was open every day 09:00-21:00 (Vienna, UTC+1), for
 * a member who may use the printer whenever it is open: Monday's extra hour gained, the other
 * days lost.
 */
const answerExample = {
  from: '2026-03-02T08:00:00.000Z',
  until: '2026-03-09T08:00:00.000Z',
  slotMinutes: 60,
  timeZone: 'Europe/Vienna',
  evaluated: { members: 2, resources: 3, slots: 168, decisions: 96 },
  changes: [
    {
      member: 12,
      memberName: 'Ben Test',
      resource: 7,
      resourceName: 'Printer',
      gains: [{ from: '2026-03-02T20:00:00.000Z', until: '2026-03-02T21:00:00.000Z' }],
      loses: [
        { from: '2026-03-03T08:00:00.000Z', until: '2026-03-03T20:00:00.000Z' },
        { from: '2026-03-04T08:00:00.000Z', until: '2026-03-04T20:00:00.000Z' },
        { from: '2026-03-05T08:00:00.000Z', until: '2026-03-05T20:00:00.000Z' },
        { from: '2026-03-06T08:00:00.000Z', until: '2026-03-06T20:00:00.000Z' },
        { from: '2026-03-07T08:00:00.000Z', until: '2026-03-07T09:00:00.000Z' },
        { from: '2026-03-07T17:00:00.000Z', until: '2026-03-07T20:00:00.000Z' },
        { from: '2026-03-08T08:00:00.000Z', until: '2026-03-08T20:00:00.000Z' },
      ],
      reason: 'openingHours',
      message: 'loses: The space is closed at that time; gains: no longer “The space is closed at that time”',
    },
  ],
};

export function accessSimulationsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    adminRoute(
      app,
      'post',
      '/access-simulations',
      {
        tags: ['access'],
        summary: 'See who gains and who loses access before a change (admins)',
        description: `Takes a proposed change as the request that would make it (\`method\`, \`path\`, \`body\`): ${supported}. Runs that request inside a database transaction that is rolled back and asks the access policy, before and after it, about every member the change can reach, every resource (of the space, for hours and holidays) and every time slot (\`slotMinutes\`, default an hour; from the start of the current hour for a week unless \`from\`/\`until\` say otherwise, at most 31 days). Answers \`changes\`: for each member and resource whose access differs, the stretches of time gained and lost and the reason that ends or begins (e.g. \`openingHours\`). Nothing changes: no record, event, webhook, mail or bridge config. The request is checked as its own route checks it: a body it would refuse answers 400, a change it would refuse 404, 409 or 422, and a change the simulation does not know 422.`,
        errors: {
          400: 'The proposed body is invalid for its route (`data.validation` names the fields), or the range is wrong.',
          422: 'The proposed request is not a change the simulation knows (`data.unsupported`), or its route would refuse it.',
        },
        example,
        answerExample,
        body: AccessSimulationRequest,
        response: { 200: AccessSimulationResult },
      },
      // A change that reaches everyone answers megabytes: they go compressed (http/large-json.ts).
      async (request, caller, reply) =>
        sendLargeJson(request, reply, await simulateRequest(ctx, caller, request.body)),
    );
  };
}
