import type { HubContext, TapClaims } from '../context.js';
import type { Db } from '../db/crud.js';
import { firstWhere } from '../db/crud.js';
import { forbidden, notFound, unprocessable } from '../errors.js';
import { memberById, memberNames } from '../identity/members.repository.js';
import { type Caller, isAdmin, seesAccount } from '../kernel/caller.js';
import { courseResources, createMemberTraining } from './training.repository.js';
import {
  cancelTrainingTap,
  cancelWaitingTaps,
  claimTrainingTap,
  insertTrainingTap,
  noteTrainingOfTap,
  trainingTapById,
  waitingTapAt,
} from './training-taps.repository.js';
import { trainsCourse } from './trainers.js';

/** How long a trainer's "tap your card now" waits for the trainee. */
export const TRAINING_TAP_WAIT_MS = 2 * 60_000;

type TapRow = NonNullable<Awaited<ReturnType<typeof trainingTapById>>>;

/** The wait as the trainer's page polls it: waiting, expired, recorded (with the trainee) or cancelled. */
export async function trainingTapRecord(db: Db, row: TapRow, now: Date) {
  const state = row.state === 'waiting' && row.expiresAt <= now.toISOString() ? 'expired' : row.state;
  const [trainee] = row.trainee ? await memberNames(db, [row.trainee]) : [];
  return {
    id: row.id,
    resource: row.resource,
    trainingCourse: row.trainingCourse,
    trainer: row.trainer,
    state: state as 'waiting' | 'expired' | 'recorded' | 'cancelled',
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    trainee: row.trainee,
    memberTraining: row.memberTraining,
    _embedded: {
      trainee: trainee ? { id: trainee.id, firstName: trainee.firstName, lastName: trainee.lastName } : null,
    },
  };
}

/**
 * POST /resources/{id}/training-taps: a trainer of the course (or an admin) waits for the
 * trainee's card at this resource's reader; the course must unlock the resource. A new wait
 * replaces an earlier one at the same resource.
 */
export async function openTrainingTap(
  db: Db,
  caller: Caller,
  resource: { id: number; account: number },
  courseId: number,
  now: Date,
) {
  const course = await firstWhere(db, 'training_courses', { id: courseId });
  if (!course || course.account !== resource.account) {
    throw unprocessable(`Training course ${courseId} does not exist`, { unknownTrainingCourse: true });
  }
  if (!isAdmin(caller) && !(await trainsCourse(db, course.id, caller.memberId))) {
    throw forbidden('Only admins and the trainers of this course may record its trainings', {
      reason: 'notTrainer',
      trainingCourse: course.id,
    });
  }
  const unlocks = (await courseResources(db, [course.id])).get(course.id) ?? [];
  if (!unlocks.includes(resource.id)) {
    throw unprocessable('This course does not unlock this resource; record it from the member’s page', {
      courseDoesNotUnlock: true,
    });
  }
  await cancelWaitingTaps(db, resource.id);
  const row = await insertTrainingTap(db, {
    account: resource.account,
    resource: resource.id,
    trainingCourse: course.id,
    trainer: caller.memberId,
    state: 'waiting',
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + TRAINING_TAP_WAIT_MS).toISOString(),
  });
  return trainingTapRecord(db, row, now);
}

/** The wait as its trainer (or an admin of the account) sees it, or 404. */
export async function visibleTrainingTap(db: Db, caller: Caller, id: number) {
  const row = await trainingTapById(db, id);
  if (!row || !seesAccount(caller, row.account) || (!isAdmin(caller) && row.trainer !== caller.memberId)) {
    throw notFound('Training tap');
  }
  return row;
}

export async function endTrainingTap(db: Db, caller: Caller, id: number) {
  const row = await visibleTrainingTap(db, caller, id);
  await cancelTrainingTap(db, row.id);
}

/**
 * The TapClaims port (context.ts): a known card of a member other than the trainer, at a resource
 * with a wait that has not expired, records the training (signed by the trainer, in one
 * transaction with its event) and answers the tap with a message instead of a switch-on.
 */
export const trainingTapClaims: TapClaims = {
  async claim(ctx: HubContext, resourceId: number, memberId: number, at: Date) {
    const wait = await waitingTapAt(ctx.db, resourceId, at.toISOString());
    if (!wait || wait.trainer === memberId) return null;
    const [trainer, trainee] = await Promise.all([
      memberById(ctx.db, wait.trainer),
      memberById(ctx.db, memberId),
    ]);
    if (!trainer || !trainee || trainee.account !== wait.account) return null;
    return ctx.events.transaction(async (trx) => {
      if (!(await claimTrainingTap(trx, wait.id, trainee.id))) return null;
      const caller: Caller = {
        memberId: trainer.id,
        accountId: trainer.account,
        spaceId: trainer.space,
        privileges: trainer.privileges as Caller['privileges'],
        superuser: false,
        via: 'session',
        apiKeyId: null,
        sessionId: null,
      };
      const trainerName = [trainer.firstName, trainer.lastName].filter(Boolean).join(' ');
      const training = await createMemberTraining(trx, {
        member: trainee,
        caller,
        body: { trainingCourse: wait.trainingCourse, trainer: trainerName },
        at,
      });
      await noteTrainingOfTap(trx, wait.id, training.id);
      const name = [trainee.firstName, trainee.lastName].filter(Boolean).join(' ');
      return `Training recorded for ${name}`;
    });
  },
};
