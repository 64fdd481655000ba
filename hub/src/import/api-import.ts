import { createHash } from 'node:crypto';
import {
  BookingCreate,
  HolidayCreate,
  MemberCreate,
  MemberKeyPut,
  MemberPackageCreate,
  MemberTrainingCreate,
  OpeningHours,
  PackageCreate,
  PackageCreditUpdate,
  PackagePermissionCreate,
  ResourceCreate,
  ResourceTypeCreate,
  SpaceUpdate,
  spaceWritable,
  TrainingCourseCreate,
} from '@makerspace/shared';
import type { z } from 'zod';
import {
  emitMemberPackage,
  packageChanges,
  createPackage,
  createPermission,
  creditChanges,
  permissionChanges,
  memberPackageChanges,
} from '../billing/packages.js';
import { insertRow, updateRow } from '../db/collection-rows.js';
import { type Db, isUniqueViolation } from '../db/crud.js';
import { rowById } from '../db/records.js';
import type { HubContext } from '../context.js';
import { HttpError } from '../errors.js';
import { createMember, emitMember, memberChanges } from '../identity/members.js';
import { membersNamed } from '../identity/members.repository.js';
import type { Caller } from '../kernel/caller.js';
import { putMemberKey } from '../keys/member-keys.js';
import { createResource, resourceChanges } from '../resources/resource-changes.js';
import { bookingChanges, createBooking } from '../spaces/bookings.service.js';
import { openingHoursProblems } from '../spaces/schedule.js';
import {
  createHoliday,
  holidayChanges,
  openingHoursOf,
  replaceOpeningHours,
  spaceColumns,
} from '../spaces/spaces.repository.js';
import {
  courseChanges,
  createCourse,
  createMemberTraining,
  memberTrainingChanges,
} from '../spaces/training.repository.js';
import type { ApiSource } from './api-source.js';
import { type ImportedId, type ImportKind, importedIds, saveImportedId } from './import-ids.repository.js';

/**
 * The API import (`makerspace-hub import api`): reads every record the issue of moving in names
 * from another server through its public API and writes it here through the areas' own rules,
 * in the order references need (resource types before resources, members before their keys).
 * Each record is written in its own transaction together with its entry in the id map
 * (import_ids), so a run stopped at any point is carried on by the next; a record whose
 * fingerprint (a hash of what was written) is unchanged is left alone, so a second run over
 * the same data writes nothing.
 */

export interface ImportTarget {
  /** The hub's context (database, clock, secret box, events); `charges` is not used. */
  ctx: HubContext;
  /** Who writes: an owner of the account the records go to. */
  caller: Caller;
}

export interface KindSummary {
  kind: ImportKind | 'openingHours';
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Why records were left out, with how many and the first few old ids. */
  skipped: Map<string, { count: number; examples: string[] }>;
}

export interface ImportSummary {
  source: string;
  dryRun: boolean;
  kinds: KindSummary[];
  requests: number;
  waits: number;
  seconds: number;
}

/** Kinds in the order they are imported (and printed). */
const order: KindSummary['kind'][] = [
  'space',
  'openingHours',
  'holiday',
  'resourceType',
  'resource',
  'trainingCourse',
  'package',
  'packagePermission',
  'packageCredit',
  'member',
  'memberKey',
  'memberTraining',
  'memberPackage',
  'booking',
];

type Body = Record<string, unknown>;

/** Stable JSON of a body (keys sorted), hashed: what was written from a record. */
export function fingerprint(body: unknown): string {
  const stable = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(stable)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, stable((v as Body)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(stable(body)) ?? '')
    .digest('base64url')
    .slice(0, 22);
}

/** The fields of a record that a create body of `schema` has, parsed by it (errors named). */
function bodyOf<S extends z.ZodObject>(
  schema: S,
  record: Body,
  overrides: Body = {},
  drop: string[] = [],
): z.infer<S> {
  const picked: Body = {};
  for (const key of Object.keys(schema.shape)) {
    if (drop.includes(key)) continue;
    if (key in overrides) picked[key] = overrides[key];
    else if (record[key] !== undefined) picked[key] = record[key];
  }
  for (const [key, value] of Object.entries(overrides)) if (!(key in picked)) picked[key] = value;
  const parsed = schema.safeParse(picked);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Skip(`invalid ${first.path.join('.') || 'record'}: ${first.message}`);
  }
  return parsed.data;
}

/** A record left out, with the reason printed in the table. */
class Skip extends Error {}

const idOf = (record: Body): string => String(record.id);

/** Of a space, only the time zone comes along: name, contact and booking rules stay this hub's. */
const spaceKeptFields = Object.keys(spaceWritable).filter((k) => k !== 'timezone');

export class ApiImport {
  private readonly summaries = new Map<KindSummary['kind'], KindSummary>();
  private readonly maps = new Map<ImportKind, Map<string, ImportedId>>();
  private placeholders = 0;
  private readonly started = performance.now();

  constructor(
    private readonly source: ApiSource,
    private readonly target: ImportTarget,
    private readonly options: { dryRun: boolean; onProgress?: (kind: string, done: number) => void },
  ) {
    for (const kind of order) {
      this.summaries.set(kind, {
        kind,
        read: 0,
        created: 0,
        updated: 0,
        unchanged: 0,
        skipped: new Map(),
      });
    }
  }

  private get db(): Db {
    return this.target.ctx.db;
  }

  private get caller(): Caller {
    return this.target.caller;
  }

  private now(): string {
    return this.target.ctx.clock.now().toISOString();
  }

  private summary(kind: KindSummary['kind']): KindSummary {
    return this.summaries.get(kind) as KindSummary;
  }

  private skip(kind: KindSummary['kind'], oldId: string, reason: string): void {
    const s = this.summary(kind);
    const entry = s.skipped.get(reason) ?? { count: 0, examples: [] };
    entry.count++;
    if (entry.examples.length < 3) entry.examples.push(oldId);
    s.skipped.set(reason, entry);
  }

  private async map(kind: ImportKind): Promise<Map<string, ImportedId>> {
    let map = this.maps.get(kind);
    if (!map) {
      map = await importedIds(this.db, this.caller.accountId, this.source.base, kind);
      this.maps.set(kind, map);
    }
    return map;
  }

  /** The new id of a record imported earlier (or, in a dry run, that would be), else undefined. */
  private async newId(kind: ImportKind, oldId: unknown): Promise<number | undefined> {
    if (oldId === null || oldId === undefined) return undefined;
    return (await this.map(kind)).get(String(oldId))?.newId;
  }

  /** A reference that must have been imported: its new id, else a Skip naming it. */
  private async ref(kind: ImportKind, oldId: unknown, field: string): Promise<number> {
    const id = await this.newId(kind, oldId);
    if (id === undefined) throw new Skip(`${field}: names a ${kind} that was not imported`);
    return id;
  }

  /** Like ref, for an optional field: null stays null. */
  private async optionalRef(kind: ImportKind, oldId: unknown, field: string): Promise<number | null> {
    return oldId === null || oldId === undefined ? null : this.ref(kind, oldId, field);
  }

  /**
   * Writes one record: created when not in the id map (or when the record it became was deleted
   * here since), updated when what would be written changed, else left alone. The write and its
   * map entry commit together. Answers the new id (a placeholder in a dry run).
   */
  private async put(
    kind: ImportKind,
    oldId: string,
    make: () => Promise<Body>,
    ops: {
      create: (trx: Db, body: Body) => Promise<number>;
      /** Updates the record; false when it no longer exists here. */
      update: (trx: Db, id: number, body: Body) => Promise<boolean>;
      /** An existing record here to take over when nothing is mapped (a member by e-mail address). */
      match?: (body: Body) => Promise<number | undefined>;
    },
  ): Promise<number | undefined> {
    const s = this.summary(kind);
    s.read++;
    this.options.onProgress?.(kind, s.read);
    let body: Body;
    try {
      body = await make();
    } catch (err) {
      if (err instanceof Skip) {
        this.skip(kind, oldId, err.message);
        return undefined;
      }
      throw err;
    }
    const print = fingerprint(body);
    const map = await this.map(kind);
    const known = map.get(oldId);
    if (known && known.fingerprint === print) {
      s.unchanged++;
      return known.newId;
    }
    const matched = known ? undefined : await ops.match?.(body);
    if (this.options.dryRun) {
      if (known || matched !== undefined) s.updated++;
      else s.created++;
      // A stand-in id (above any real one) that passes the create bodies' checks.
      const newId = known?.newId ?? matched ?? 2_000_000_000 + ++this.placeholders;
      map.set(oldId, { newId, fingerprint: print });
      return newId;
    }
    try {
      const result = await this.target.ctx.events.transaction(async (trx) => {
        let id = known?.newId ?? matched;
        let created = false;
        if (id === undefined || !(await ops.update(trx, id, body))) {
          id = await ops.create(trx, body);
          created = true;
        }
        await saveImportedId(
          trx,
          {
            account: this.caller.accountId,
            source: this.source.base,
            kind,
            oldId,
            newId: id,
            fingerprint: print,
          },
          this.now(),
        );
        return { id, created };
      });
      if (result.created) s.created++;
      else s.updated++;
      map.set(oldId, { newId: result.id, fingerprint: print });
      return result.id;
    } catch (err) {
      if (err instanceof HttpError || err instanceof Skip) {
        this.skip(kind, oldId, err.message.replace(/\d+/g, 'N'));
        return undefined;
      }
      if (isUniqueViolation(err)) {
        this.skip(kind, oldId, 'another record here has the same e-mail address, card or name');
        return undefined;
      }
      throw err;
    }
  }

  /** Updates a row under its current lockVersion; false when it is gone. */
  private async updateColumns(
    trx: Db,
    table:
      | 'spaces'
      | 'members'
      | 'resource_types'
      | 'resources'
      | 'training_courses'
      | 'packages'
      | 'package_permissions'
      | 'package_credits'
      | 'member_trainings'
      | 'member_packages'
      | 'bookings'
      | 'holidays',
    id: number,
    columns: (row: never) => Promise<Body> | Body,
  ): Promise<boolean> {
    const row = await rowById(trx, table, id);
    if (!row) return false;
    const values = await columns(row as never);
    await updateRow(trx, table, id, (row as { lockVersion: number }).lockVersion, values, {
      at: this.now(),
      by: this.caller.memberId,
    });
    return true;
  }

  async run(): Promise<ImportSummary> {
    await this.spaces();
    await this.resourceTypes();
    await this.resources();
    await this.trainingCourses();
    await this.packages();
    await this.members();
    await this.bookings();
    return {
      source: this.source.base,
      dryRun: this.options.dryRun,
      kinds: order.map((k) => this.summary(k)),
      requests: this.source.stats.requests,
      waits: this.source.stats.waits,
      seconds: (performance.now() - this.started) / 1000,
    };
  }

  /**
   * Spaces: the other server's first space becomes this account's space (the caller's); more
   * spaces are left out (one hub account, one space here is what the import fills). Opening
   * hours are replaced as a whole; holidays are imported one by one.
   */
  private async spaces(): Promise<void> {
    let first = true;
    for await (const space of this.source.list('/spaces')) {
      const oldId = idOf(space);
      if (!first) {
        this.summary('space').read++;
        this.skip('space', oldId, 'only the first space is imported (into this account’s space)');
        continue;
      }
      first = false;
      // The time zone comes along: opening hours, holidays and packages' times are wall times in it.
      const spaceId = await this.put(
        'space',
        oldId,
        async () => bodyOf(SpaceUpdate, space, { lockVersion: 1 }, [...spaceKeptFields]),
        {
          create: async () => this.caller.spaceId,
          update: (trx, id, body) =>
            this.updateColumns(trx, 'spaces', id, () => {
              const { lockVersion: _, ...fields } = body;
              return spaceColumns(fields);
            }),
          match: async () => this.caller.spaceId,
        },
      );
      if (spaceId === undefined) continue;
      await this.openingHours(oldId);
      for await (const holiday of this.source.list(`/spaces/${oldId}/holidays`)) {
        await this.put('holiday', idOf(holiday), async () => bodyOf(HolidayCreate, holiday), {
          create: async (trx, body) => {
            const row = await rowById(trx, 'spaces', this.caller.spaceId);
            if (!row) throw new Skip('the space is gone');
            return (
              await createHoliday(trx, row, body as never, { at: this.now(), by: this.caller.memberId })
            ).id;
          },
          update: (trx, id, body) =>
            this.updateColumns(trx, 'holidays', id, (row) => holidayChanges(row, body)),
        });
      }
    }
  }

  private async openingHours(oldSpace: string): Promise<void> {
    const s = this.summary('openingHours');
    const { body } = await this.source.get(`/spaces/${oldSpace}/opening-hours`);
    const parsed = OpeningHours.safeParse(body);
    s.read += Array.isArray(body) ? body.length : 1;
    if (!parsed.success || openingHoursProblems(parsed.data).length > 0) {
      this.skip('openingHours', oldSpace, 'the opening hours are not valid (overlapping or malformed)');
      return;
    }
    const current = await openingHoursOf(this.db, this.caller.spaceId);
    if (fingerprint(current) === fingerprint(parsed.data)) {
      s.unchanged += parsed.data.length;
      return;
    }
    s.updated += parsed.data.length;
    if (this.options.dryRun) return;
    const space = await rowById(this.db, 'spaces', this.caller.spaceId);
    if (!space) return;
    await this.db
      .transaction()
      .execute((trx) =>
        replaceOpeningHours(trx, space, parsed.data, { at: this.now(), by: this.caller.memberId }),
      );
  }

  private async resourceTypes(): Promise<void> {
    for await (const type of this.source.list('/resource-types')) {
      await this.put('resourceType', idOf(type), async () => bodyOf(ResourceTypeCreate, type), {
        create: async (trx, body) =>
          (
            await insertRow(
              trx,
              'resource_types',
              { account: this.caller.accountId, name: body.name },
              { at: this.now(), by: this.caller.memberId },
            )
          ).id,
        update: (trx, id, body) => this.updateColumns(trx, 'resource_types', id, () => ({ name: body.name })),
      });
    }
  }

  /** Resources with their prices and settings; a new switch-on code each, no bridge (paired again). */
  private async resources(): Promise<void> {
    const ctx = { ...this.target.ctx };
    for await (const resource of this.source.list('/resources')) {
      await this.put(
        'resource',
        idOf(resource),
        async () =>
          bodyOf(
            ResourceCreate,
            resource,
            {
              space: this.caller.spaceId,
              type: await this.optionalRef('resourceType', resource.type, 'type'),
            },
            ['switchOnCode'],
          ),
        {
          create: async (trx, body) => (await createResource(trx, ctx, this.caller, body, this.now())).id,
          update: (trx, id, body) =>
            this.updateColumns(trx, 'resources', id, (row) =>
              resourceChanges(trx, { ...ctx, db: trx }, row, body),
            ),
        },
      );
    }
  }

  private async trainingCourses(): Promise<void> {
    for await (const course of this.source.list('/training-courses')) {
      await this.put(
        'trainingCourse',
        idOf(course),
        async () => {
          const resources: number[] = [];
          for (const r of (course.resources as unknown[]) ?? [])
            resources.push(await this.ref('resource', r, 'resource'));
          return bodyOf(TrainingCourseCreate, course, { resources });
        },
        {
          create: async (trx, body) => (await createCourse(trx, this.caller, body as never, this.now())).id,
          update: (trx, id, body) =>
            this.updateColumns(trx, 'training_courses', id, (row) => courseChanges(trx, row, body as never)),
        },
      );
    }
  }

  /** Packages with their permissions and credits (what members get each period). */
  private async packages(): Promise<void> {
    for await (const pkg of this.source.list('/packages')) {
      const oldId = idOf(pkg);
      const id = await this.put('package', oldId, async () => bodyOf(PackageCreate, pkg), {
        create: async (trx, body) => (await createPackage(trx, this.caller, body as never, this.now())).id,
        update: (trx, id, body) =>
          this.updateColumns(trx, 'packages', id, (row) => packageChanges(this.caller, row, body as never)),
      });
      if (id === undefined) continue;
      for await (const permission of this.source.list(`/packages/${oldId}/permissions`)) {
        await this.put(
          'packagePermission',
          idOf(permission),
          async () =>
            bodyOf(PackagePermissionCreate, permission, {
              resourceType: await this.optionalRef('resourceType', permission.resourceType, 'resourceType'),
              resource: await this.optionalRef('resource', permission.resource, 'resource'),
            }),
          {
            create: async (trx, body) => {
              const row = await rowById(trx, 'packages', id);
              if (!row) throw new Skip('its package is gone');
              return (await createPermission(trx, this.caller, row, body, this.now())).id;
            },
            update: (trx, pid, body) =>
              this.updateColumns(trx, 'package_permissions', pid, (row) =>
                permissionChanges(trx, this.caller, row, body),
              ),
          },
        );
      }
      for await (const credit of this.source.list(`/packages/${oldId}/credits`)) {
        await this.put(
          'packageCredit',
          idOf(credit),
          async () => {
            const resources = [];
            for (const r of (credit.resources as Body[]) ?? []) {
              const entry: Body = { type: r.type };
              // Only the fields the record has: an absent one stays absent.
              if ('resourceType' in r)
                entry.resourceType = await this.optionalRef('resourceType', r.resourceType, 'resourceType');
              if ('resource' in r)
                entry.resource = await this.optionalRef('resource', r.resource, 'resource');
              resources.push(entry);
            }
            const { lockVersion: _, ...body } = bodyOf(PackageCreditUpdate, credit, {
              resources,
              lockVersion: 1,
            });
            return body;
          },
          {
            // A credit is made as the interface makes one (a default) and then given its values.
            create: async (trx, body) => {
              const row = await insertRow(
                trx,
                'package_credits',
                { account: this.caller.accountId, package: id },
                { at: this.now(), by: this.caller.memberId },
              );
              await this.updateColumns(trx, 'package_credits', row.id, (r) =>
                creditChanges(this.caller, r, body),
              );
              return row.id;
            },
            update: (trx, cid, body) =>
              this.updateColumns(trx, 'package_credits', cid, (row) => creditChanges(this.caller, row, body)),
          },
        );
      }
    }
  }

  /** Members with their key cards, trainings and packages (one list, embedded). */
  private async members(): Promise<void> {
    const list = this.source.list('/members', { embed: ['key', 'trainings', 'memberPackages'] });
    for await (const member of list) {
      const oldId = idOf(member);
      if (member.state === 'pending') {
        this.summary('member').read++;
        this.skip('member', oldId, 'a sign-up waiting for approval');
        continue;
      }
      const id = await this.put(
        'member',
        oldId,
        async () => bodyOf(MemberCreate, member, { space: this.caller.spaceId }),
        {
          create: async (trx, body) => (await createMember(trx, this.caller, body, this.now())).id,
          update: async (trx, mid, body) => {
            const done = await this.updateColumns(trx, 'members', mid, (row) =>
              memberChanges(trx, this.caller, row, body),
            );
            if (done) {
              const row = await rowById(trx, 'members', mid);
              if (row) await emitMember(trx, 'member_updated', row);
            }
            return done;
          },
          match: async (body) => {
            if (typeof body.emailAddress !== 'string') return undefined;
            const found = await membersNamed(this.db, body.emailAddress, this.caller.accountId);
            return found.find((m) => m.account === this.caller.accountId)?.id;
          },
        },
      );
      if (id === undefined) continue;
      const embedded = (member._embedded ?? {}) as Body;
      await this.memberKey(oldId, id, embedded.key as Body | null | undefined);
      for (const training of (embedded.trainings as Body[]) ?? []) await this.memberTraining(id, training);
      for (const mp of (embedded.memberPackages as Body[]) ?? []) await this.memberPackage(id, mp);
    }
  }

  private async memberKey(oldMember: string, memberId: number, key: Body | null | undefined): Promise<void> {
    if (!key) return;
    await this.put('memberKey', oldMember, async () => bodyOf(MemberKeyPut, key), {
      create: async (trx, body) => {
        const member = await rowById(trx, 'members', memberId);
        if (!member) throw new Skip('its member is gone');
        await putMemberKey(trx, member, body as never, this.caller.memberId, this.now());
        return memberId;
      },
      update: async (trx, _id, body) => {
        const member = await rowById(trx, 'members', memberId);
        if (!member) return false;
        await putMemberKey(trx, member, body as never, this.caller.memberId, this.now());
        return true;
      },
    });
  }

  private async memberTraining(memberId: number, training: Body): Promise<void> {
    await this.put(
      'memberTraining',
      idOf(training),
      async () =>
        bodyOf(MemberTrainingCreate, training, {
          trainingCourse: await this.ref('trainingCourse', training.trainingCourse, 'trainingCourse'),
        }),
      {
        create: async (trx, body) => {
          const member = await rowById(trx, 'members', memberId);
          if (!member) throw new Skip('its member is gone');
          return (
            await createMemberTraining(trx, {
              member,
              caller: this.caller,
              body: body as never,
              at: this.target.ctx.clock.now(),
            })
          ).id;
        },
        update: (trx, id, body) =>
          this.updateColumns(trx, 'member_trainings', id, (row) => memberTrainingChanges(row, body as never)),
      },
    );
  }

  /**
   * A member's package, written as it stands: its past periods and setup fee were billed by the
   * other server, so neither is charged again; this hub bills the periods that start after today.
   */
  private async memberPackage(memberId: number, mp: Body): Promise<void> {
    await this.put(
      'memberPackage',
      idOf(mp),
      async () =>
        bodyOf(MemberPackageCreate, mp, { package: await this.ref('package', mp.package, 'package') }),
      {
        create: async (trx, body) => {
          const member = await rowById(trx, 'members', memberId);
          if (!member) throw new Skip('its member is gone');
          const today = this.now().slice(0, 10);
          const row = await insertRow(
            trx,
            'member_packages',
            {
              account: member.account,
              member: member.id,
              package: body.package,
              fromDate: body.fromDate ?? today,
              untilDate: body.untilDate ?? null,
              notes: body.notes ?? null,
              setupCharged: 1,
              billedUntil: dayAfter(today),
            },
            { at: this.now(), by: this.caller.memberId },
          );
          await emitMemberPackage(trx, 'memberPackage_created', row);
          return row.id;
        },
        update: (trx, id, body) =>
          this.updateColumns(trx, 'member_packages', id, (row) => memberPackageChanges(row, body as never)),
      },
    );
  }

  /** Bookings ahead (ending after now), confirmed ones; fees were charged by the other server. */
  private async bookings(): Promise<void> {
    // The booking fee was charged at the other server: the import charges nothing.
    const ctx: HubContext = {
      ...this.target.ctx,
      charges: { ...this.target.ctx.charges, chargeBooking: async () => {} },
    };
    const list = this.source.list('/bookings', { fromDateTime: this.now() });
    for await (const booking of list) {
      const oldId = idOf(booking);
      if (booking.state !== undefined && booking.state !== 'confirmed') {
        this.summary('booking').read++;
        this.skip('booking', oldId, 'cancelled');
        continue;
      }
      if (typeof booking.untilDateTime === 'string' && booking.untilDateTime <= this.now()) {
        this.summary('booking').read++;
        this.skip('booking', oldId, 'in the past');
        continue;
      }
      await this.put(
        'booking',
        oldId,
        async () =>
          bodyOf(
            BookingCreate,
            booking,
            {
              resource: await this.ref('resource', booking.resource, 'resource'),
              member: await this.ref('member', booking.member, 'member'),
            },
            ['applyMemberRules'],
          ),
        {
          create: async (trx, body) =>
            (await createBooking(trx, ctx, this.caller, body as never, this.now())).id,
          update: (trx, id, body) =>
            this.updateColumns(trx, 'bookings', id, async (row) => {
              const { resource: _r, member: _m, ...change } = body;
              return bookingChanges(trx, ctx, this.caller, row, {
                ...change,
                lockVersion: (row as { lockVersion: number }).lockVersion,
              } as never);
            }),
        },
      );
    }
  }
}

function dayAfter(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** The summary as a table of counts per kind, then what was skipped and why. */
export function summaryTable(summary: ImportSummary): string {
  const head = [
    'kind',
    'read',
    summary.dryRun ? 'would create' : 'created',
    summary.dryRun ? 'would update' : 'updated',
    'unchanged',
    'skipped',
  ];
  const rows = summary.kinds.map((k) => [
    k.kind,
    String(k.read),
    String(k.created),
    String(k.updated),
    String(k.unchanged),
    String([...k.skipped.values()].reduce((n, s) => n + s.count, 0)),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [
    `${summary.dryRun ? 'Dry run (nothing written): ' : ''}import from ${summary.source}`,
    line(head),
    ...rows.map(line),
  ];
  const skipped = summary.kinds.flatMap((k) =>
    [...k.skipped.entries()].map(
      ([why, s]) => `  ${k.kind}: ${s.count} skipped: ${why} (e.g. id ${s.examples.join(', ')})`,
    ),
  );
  if (skipped.length > 0) out.push('', 'Skipped:', ...skipped);
  out.push(
    '',
    `${summary.requests} requests, ${summary.waits} waits for rate limits, ${summary.seconds.toFixed(1)} s`,
  );
  return `${out.join('\n')}\n`;
}
