import { type Db, firstWhere } from '../db/crud.js';
import { conflict, forbidden, notFound, unprocessable } from '../errors.js';
import { memberById, membersMatching } from '../identity/members.repository.js';
import { type Caller, isAdmin, seesAccount } from '../kernel/caller.js';
import {
  coursesOfTrainer,
  courseTrainer,
  deleteCourseTrainer,
  insertCourseTrainer,
  trainersOfCourse,
} from './trainers.repository.js';

/**
 * Trainers (docs/DECISIONS.md, "Trainers"): an admin makes a member trainer of given courses; a
 * trainer records trainings of those courses only, for other members of the account, with the
 * existing POST /members/{id}/trainings. Admins record any course, as before.
 */

/** The course the caller sees (its account), or 404. */
async function visibleCourse(db: Db, caller: Caller, courseId: number) {
  const course = await firstWhere(db, 'training_courses', { id: courseId });
  if (!course || !seesAccount(caller, course.account)) throw notFound('Training course');
  return course;
}

export function trainerRecord(row: {
  course: number;
  member: number;
  createdAt: string;
  createdBy: number | null;
  firstName?: string;
  lastName?: string | null;
}) {
  const record = {
    trainingCourse: row.course,
    member: row.member,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
  };
  if (row.firstName === undefined) return record;
  return {
    ...record,
    _embedded: { member: { id: row.member, firstName: row.firstName, lastName: row.lastName ?? null } },
  };
}

/** GET /training-courses/{id}/trainers: every member of the account may see who trains a course. */
export async function courseTrainers(db: Db, caller: Caller, courseId: number) {
  const course = await visibleCourse(db, caller, courseId);
  return (await trainersOfCourse(db, course.id)).map(trainerRecord);
}

/** POST /training-courses/{id}/trainers (admins): the member may record trainings of the course. */
export async function addCourseTrainer(
  db: Db,
  caller: Caller,
  courseId: number,
  memberId: number,
  at: string,
) {
  const course = await visibleCourse(db, caller, courseId);
  const member = await memberById(db, memberId);
  if (!member || member.account !== course.account) {
    throw unprocessable(`Member ${memberId} does not exist in this account`, { unknownMember: true });
  }
  if (await courseTrainer(db, course.id, member.id)) {
    throw conflict('This member already trains this course', { alreadyTrainer: true });
  }
  const row = await insertCourseTrainer(db, {
    course: course.id,
    member: member.id,
    account: course.account,
    createdAt: at,
    createdBy: caller.memberId || null,
  });
  return trainerRecord({ ...row, firstName: member.firstName, lastName: member.lastName });
}

/** DELETE /training-courses/{id}/trainers/{memberId} (admins). Trainings they signed stay. */
export async function removeCourseTrainer(db: Db, caller: Caller, courseId: number, memberId: number) {
  const course = await visibleCourse(db, caller, courseId);
  if (!(await deleteCourseTrainer(db, course.id, memberId))) throw notFound('Trainer');
}

/**
 * The member a caller may record a training of this course for: admins any member they see
 * (checked by the caller of this), a trainer of the course another member of the account. Each
 * refusal says why (`data.reason`).
 */
export async function traineeOfTrainer(db: Db, caller: Caller, memberId: number, courseId: number) {
  if (isAdmin(caller)) throw new Error('admins record trainings through findMember');
  const trains = caller.memberId ? await courseTrainer(db, courseId, caller.memberId) : undefined;
  if (!trains) {
    throw forbidden('Only admins and the trainers of this course may record its trainings', {
      reason: 'notTrainer',
      trainingCourse: courseId,
    });
  }
  if (memberId === caller.memberId) {
    throw forbidden('A trainer does not sign their own training; ask another trainer or an admin', {
      reason: 'ownTraining',
    });
  }
  const member = await memberById(db, memberId);
  if (!member || member.account !== caller.accountId) throw notFound('Member');
  const me = await memberById(db, caller.memberId);
  const trainerName = me ? [me.firstName, me.lastName].filter(Boolean).join(' ') : null;
  return { member, trainerName };
}

/** Does the caller train any course, and is the member one of their account (a possible trainee)? */
export async function isTrainerFor(db: Db, caller: Caller, memberId: number): Promise<boolean> {
  if (!caller.memberId || (await coursesOfTrainer(db, caller.memberId)).length === 0) return false;
  const member = await memberById(db, memberId);
  return member !== undefined && member.account === caller.accountId;
}

/** Members a trainer may pick by name (id and name only): active members of the account. */
export async function traineeCandidates(db: Db, caller: Caller, courseId: number, q: string) {
  const course = await visibleCourse(db, caller, courseId);
  if (!isAdmin(caller) && !(await courseTrainer(db, course.id, caller.memberId))) {
    throw forbidden('Only admins and the trainers of this course may look for trainees', {
      reason: 'notTrainer',
    });
  }
  return membersMatching(db, course.account, q, 20);
}
