import {
  BookingCreate,
  MemberCreate,
  MemberKeyPut,
  MemberPackageCreate,
  MemberTrainingCreate,
} from '@makerspace/shared';
import { emitMemberPackage, memberPackageChanges } from '../billing/packages.js';
import type { HubContext } from '../context.js';
import { insertRow } from '../db/collection-rows.js';
import { rowById } from '../db/records.js';
import { createMember, emitMember, memberChanges } from '../identity/members.js';
import { membersNamed } from '../identity/members.repository.js';
import { putMemberKey } from '../keys/member-keys.js';
import { bookingChanges, createBooking } from '../spaces/bookings.service.js';
import { createMemberTraining, memberTrainingChanges } from '../spaces/training.repository.js';
import { type Body, idOf, type ImportRun, Skip } from './import-run.js';

/** Members with what they hold (key cards, trainings, packages), and bookings ahead, from the other server. */

/** Members with their key cards, trainings and packages (one list, embedded). */
export async function members(run: ImportRun): Promise<void> {
  const list = run.source.list('/members', { embed: ['key', 'trainings', 'memberPackages'] });
  for await (const member of list) {
    const oldId = idOf(member);
    if (member.state === 'pending') {
      run.summary('member').read++;
      run.skip('member', oldId, 'a sign-up waiting for approval');
      continue;
    }
    const id = await run.put(
      'member',
      oldId,
      async () => run.body(MemberCreate, member, { space: run.caller.spaceId }),
      {
        create: async (trx, body) => (await createMember(trx, run.caller, body, run.now())).id,
        update: async (trx, mid, body) => {
          const done = await run.updateColumns(trx, 'members', mid, (row) =>
            memberChanges(trx, run.caller, row, body),
          );
          if (done) {
            const row = await rowById(trx, 'members', mid);
            if (row) await emitMember(trx, 'member_updated', row);
          }
          return done;
        },
        // A member here with the address (the owner made by init) is taken over, unless another
        // member of the source became it already (then the address is a duplicate: skipped).
        match: async (body) => {
          if (typeof body.emailAddress !== 'string') return undefined;
          const found = await membersNamed(run.db, body.emailAddress, run.caller.accountId);
          const id = found.find((m) => m.account === run.caller.accountId)?.id;
          return id !== undefined && !(await run.isImported('member', id)) ? id : undefined;
        },
      },
    );
    if (id === undefined) continue;
    const embedded = (member._embedded ?? {}) as Body;
    await memberKey(run, oldId, id, embedded.key as Body | null | undefined);
    for (const training of (embedded.trainings as Body[]) ?? []) await memberTraining(run, id, training);
    for (const mp of (embedded.memberPackages as Body[]) ?? []) await memberPackage(run, id, mp);
  }
}

async function memberKey(
  run: ImportRun,
  oldMember: string,
  memberId: number,
  key: Body | null | undefined,
): Promise<void> {
  if (!key) return;
  await run.put('memberKey', oldMember, async () => run.body(MemberKeyPut, key), {
    create: async (trx, body) => {
      const member = await rowById(trx, 'members', memberId);
      if (!member) throw new Skip('its member is gone');
      await putMemberKey(trx, member, body as never, run.caller.memberId, run.now());
      return memberId;
    },
    update: async (trx, _id, body) => {
      const member = await rowById(trx, 'members', memberId);
      if (!member) return false;
      await putMemberKey(trx, member, body as never, run.caller.memberId, run.now());
      return true;
    },
  });
}

async function memberTraining(run: ImportRun, memberId: number, training: Body): Promise<void> {
  await run.put(
    'memberTraining',
    idOf(training),
    async () =>
      run.body(MemberTrainingCreate, training, {
        trainingCourse: await run.ref('trainingCourse', training.trainingCourse, 'trainingCourse'),
      }),
    {
      create: async (trx, body) => {
        const member = await rowById(trx, 'members', memberId);
        if (!member) throw new Skip('its member is gone');
        return (
          await createMemberTraining(trx, {
            member,
            caller: run.caller,
            body: body as never,
            at: run.target.ctx.clock.now(),
          })
        ).id;
      },
      update: (trx, id, body) =>
        run.updateColumns(trx, 'member_trainings', id, (row) => memberTrainingChanges(row, body as never)),
    },
  );
}

/**
 * A member's package, written as it stands: its past periods and setup fee were billed by the
 * other server, so neither is charged again; this hub bills the periods that start after today.
 */
async function memberPackage(run: ImportRun, memberId: number, mp: Body): Promise<void> {
  await run.put(
    'memberPackage',
    idOf(mp),
    async () =>
      run.body(MemberPackageCreate, mp, { package: await run.ref('package', mp.package, 'package') }),
    {
      create: async (trx, body) => {
        const member = await rowById(trx, 'members', memberId);
        if (!member) throw new Skip('its member is gone');
        const today = run.now().slice(0, 10);
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
          { at: run.now(), by: run.caller.memberId },
        );
        await emitMemberPackage(trx, 'memberPackage_created', row);
        return row.id;
      },
      update: (trx, id, body) =>
        run.updateColumns(trx, 'member_packages', id, (row) => memberPackageChanges(row, body as never)),
    },
  );
}

/** Bookings ahead (ending after now), confirmed ones; fees were charged by the other server. */
export async function bookings(run: ImportRun): Promise<void> {
  // The booking fee was charged at the other server: the import charges nothing.
  const ctx: HubContext = {
    ...run.target.ctx,
    charges: { ...run.target.ctx.charges, chargeBooking: async () => {} },
  };
  const list = run.source.list('/bookings', { fromDateTime: run.now() });
  for await (const booking of list) {
    const oldId = idOf(booking);
    if (booking.state !== undefined && booking.state !== 'confirmed') {
      run.summary('booking').read++;
      run.skip('booking', oldId, 'cancelled');
      continue;
    }
    if (typeof booking.untilDateTime === 'string' && booking.untilDateTime <= run.now()) {
      run.summary('booking').read++;
      run.skip('booking', oldId, 'in the past');
      continue;
    }
    await run.put(
      'booking',
      oldId,
      async () =>
        run.body(
          BookingCreate,
          booking,
          {
            resource: await run.ref('resource', booking.resource, 'resource'),
            member: await run.ref('member', booking.member, 'member'),
          },
          ['applyMemberRules'],
        ),
      {
        create: async (trx, body) => (await createBooking(trx, ctx, run.caller, body as never, run.now())).id,
        update: (trx, id, body) =>
          run.updateColumns(trx, 'bookings', id, async (row) => {
            const { resource: _r, member: _m, ...change } = body;
            return bookingChanges(trx, ctx, run.caller, row, {
              ...change,
              lockVersion: (row as { lockVersion: number }).lockVersion,
            } as never);
          }),
      },
    );
  }
}

function dayAfter(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
