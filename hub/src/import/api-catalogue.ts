import {
  HolidayCreate,
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
import {
  createPackage,
  createPermission,
  creditChanges,
  packageChanges,
  permissionChanges,
} from '../billing/packages.js';
import { insertRow } from '../db/collection-rows.js';
import { rowById } from '../db/records.js';
import { createResource, resourceChanges } from '../resources/resource-changes.js';
import { openingHoursProblems } from '../spaces/schedule.js';
import {
  createHoliday,
  holidayChanges,
  openingHoursOf,
  replaceOpeningHours,
  spaceColumns,
} from '../spaces/spaces.repository.js';
import { courseChanges, createCourse } from '../spaces/training.repository.js';
import { type Body, fingerprint, idOf, type ImportRun, Skip } from './import-run.js';

/**
 * What a space is equipped with, from the other server: its time zone, opening hours and
 * holidays, resource types, resources, training courses, packages with their permissions and
 * credits. Members and bookings (api-members.ts) refer to these.
 */

/** Of a space, only the time zone comes along: name, contact and booking rules stay this hub's. */
const spaceKeptFields = Object.keys(spaceWritable).filter((k) => k !== 'timezone');

/**
 * Spaces: the other server's first space becomes this account's space (the caller's); more
 * spaces are left out (one hub account, one space here is what the import fills). Opening
 * hours are replaced as a whole; holidays are imported one by one.
 */
export async function spaces(run: ImportRun): Promise<void> {
  let first = true;
  for await (const space of run.source.list('/spaces')) {
    const oldId = idOf(space);
    if (!first) {
      run.summary('space').read++;
      run.skip('space', oldId, 'only the first space is imported (into this account’s space)');
      continue;
    }
    first = false;
    // The time zone comes along: opening hours, holidays and packages' times are wall times in it.
    const spaceId = await run.put(
      'space',
      oldId,
      async () => run.body(SpaceUpdate, space, { lockVersion: 1 }, [...spaceKeptFields]),
      {
        create: async () => run.caller.spaceId,
        update: (trx, id, body) =>
          run.updateColumns(trx, 'spaces', id, () => {
            const { lockVersion: _, ...fields } = body;
            return spaceColumns(fields);
          }),
        match: async () => run.caller.spaceId,
      },
    );
    if (spaceId === undefined) continue;
    await openingHours(run, oldId);
    for await (const holiday of run.source.list(`/spaces/${oldId}/holidays`)) {
      await run.put('holiday', idOf(holiday), async () => run.body(HolidayCreate, holiday), {
        create: async (trx, body) => {
          const row = await rowById(trx, 'spaces', run.caller.spaceId);
          if (!row) throw new Skip('the space is gone');
          return (await createHoliday(trx, row, body as never, { at: run.now(), by: run.caller.memberId }))
            .id;
        },
        update: (trx, id, body) => run.updateColumns(trx, 'holidays', id, (row) => holidayChanges(row, body)),
      });
    }
  }
}

async function openingHours(run: ImportRun, oldSpace: string): Promise<void> {
  const s = run.summary('openingHours');
  const { body } = await run.source.get(`/spaces/${oldSpace}/opening-hours`);
  const parsed = OpeningHours.safeParse(body);
  s.read += Array.isArray(body) ? body.length : 1;
  if (!parsed.success || openingHoursProblems(parsed.data).length > 0) {
    run.skip('openingHours', oldSpace, 'the opening hours are not valid (overlapping or malformed)');
    return;
  }
  const current = await openingHoursOf(run.db, run.caller.spaceId);
  if (fingerprint(current) === fingerprint(parsed.data)) {
    s.unchanged += parsed.data.length;
    return;
  }
  s.updated += parsed.data.length;
  if (run.options.dryRun) return;
  const space = await rowById(run.db, 'spaces', run.caller.spaceId);
  if (!space) return;
  await run.db
    .transaction()
    .execute((trx) =>
      replaceOpeningHours(trx, space, parsed.data, { at: run.now(), by: run.caller.memberId }),
    );
}

export async function resourceTypes(run: ImportRun): Promise<void> {
  for await (const type of run.source.list('/resource-types')) {
    await run.put('resourceType', idOf(type), async () => run.body(ResourceTypeCreate, type), {
      create: async (trx, body) =>
        (
          await insertRow(
            trx,
            'resource_types',
            { account: run.caller.accountId, name: body.name },
            { at: run.now(), by: run.caller.memberId },
          )
        ).id,
      update: (trx, id, body) => run.updateColumns(trx, 'resource_types', id, () => ({ name: body.name })),
    });
  }
}

/** Resources with their prices and settings; a new switch-on code each, no bridge (paired again). */
export async function resources(run: ImportRun): Promise<void> {
  const ctx = { ...run.target.ctx };
  for await (const resource of run.source.list('/resources')) {
    await run.put(
      'resource',
      idOf(resource),
      async () =>
        run.body(
          ResourceCreate,
          resource,
          {
            space: run.caller.spaceId,
            type: await run.optionalRef('resourceType', resource.type, 'type'),
          },
          ['switchOnCode'],
        ),
      {
        create: async (trx, body) => (await createResource(trx, ctx, run.caller, body, run.now())).id,
        update: (trx, id, body) =>
          run.updateColumns(trx, 'resources', id, (row) =>
            resourceChanges(trx, { ...ctx, db: trx }, row, body),
          ),
      },
    );
  }
}

export async function trainingCourses(run: ImportRun): Promise<void> {
  for await (const course of run.source.list('/training-courses')) {
    await run.put(
      'trainingCourse',
      idOf(course),
      async () => {
        const resources: number[] = [];
        for (const r of (course.resources as unknown[]) ?? [])
          resources.push(await run.ref('resource', r, 'resource'));
        return run.body(TrainingCourseCreate, course, { resources });
      },
      {
        create: async (trx, body) => (await createCourse(trx, run.caller, body as never, run.now())).id,
        update: (trx, id, body) =>
          run.updateColumns(trx, 'training_courses', id, (row) => courseChanges(trx, row, body as never)),
      },
    );
  }
}

/** Packages with their permissions and credits (what members get each period). */
export async function packages(run: ImportRun): Promise<void> {
  for await (const pkg of run.source.list('/packages')) {
    const oldId = idOf(pkg);
    const id = await run.put('package', oldId, async () => run.body(PackageCreate, pkg), {
      create: async (trx, body) => (await createPackage(trx, run.caller, body as never, run.now())).id,
      update: (trx, id, body) =>
        run.updateColumns(trx, 'packages', id, (row) => packageChanges(run.caller, row, body as never)),
    });
    if (id === undefined) continue;
    for await (const permission of run.source.list(`/packages/${oldId}/permissions`)) {
      await run.put(
        'packagePermission',
        idOf(permission),
        async () =>
          run.body(PackagePermissionCreate, permission, {
            resourceType: await run.optionalRef('resourceType', permission.resourceType, 'resourceType'),
            resource: await run.optionalRef('resource', permission.resource, 'resource'),
          }),
        {
          create: async (trx, body) => {
            const row = await rowById(trx, 'packages', id);
            if (!row) throw new Skip('its package is gone');
            return (await createPermission(trx, run.caller, row, body, run.now())).id;
          },
          update: (trx, pid, body) =>
            run.updateColumns(trx, 'package_permissions', pid, (row) =>
              permissionChanges(trx, run.caller, row, body),
            ),
        },
      );
    }
    for await (const credit of run.source.list(`/packages/${oldId}/credits`)) {
      await run.put(
        'packageCredit',
        idOf(credit),
        async () => {
          const resources = [];
          for (const r of (credit.resources as Body[]) ?? []) {
            const entry: Body = { type: r.type };
            // Only the fields the record has: an absent one stays absent.
            if ('resourceType' in r)
              entry.resourceType = await run.optionalRef('resourceType', r.resourceType, 'resourceType');
            if ('resource' in r) entry.resource = await run.optionalRef('resource', r.resource, 'resource');
            resources.push(entry);
          }
          const { lockVersion: _, ...body } = run.body(PackageCreditUpdate, credit, {
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
              { account: run.caller.accountId, package: id },
              { at: run.now(), by: run.caller.memberId },
            );
            await run.updateColumns(trx, 'package_credits', row.id, (r) =>
              creditChanges(run.caller, r, body),
            );
            return row.id;
          },
          update: (trx, cid, body) =>
            run.updateColumns(trx, 'package_credits', cid, (row) => creditChanges(run.caller, row, body)),
        },
      );
    }
  }
}
