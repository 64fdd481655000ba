import type { Db } from '../db/crud.js';
import { forbidden, notFound } from '../errors.js';
import { memberById, membersMatching } from '../identity/members.repository.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import {
  addRoleHolder,
  type MemberRole,
  removeRoleHolder,
  roleHeld,
  roleHolders,
  visibleSubject,
} from '../resources/member-roles.js';
import { coursesOfTrainer } from './trainers.repository.js';

/**
 * Trainers (docs/DECISIONS.md, "Trainers"): an admin makes a member trainer of given courses; a
 * trainer records trainings of those courses only, for other members of the account, with the
 * existing POST /members/{id}/trainings. Admins record any course, as before.
 */

const trainers: MemberRole<'trainingCourse', 'course_trainers'> = {
  table: 'course_trainers',
  subject: 'course',
  recordKey: 'trainingCourse',
  subjectTable: 'training_courses',
  subjectName: 'Training course',
  alreadyHeld: { message: 'This member already trains this course', data: { alreadyTrainer: true } },
  holderName: 'Trainer',
};

/** GET /training-courses/{id}/trainers: every member of the account may see who trains a course. */
export function courseTrainers(db: Db, caller: Caller, courseId: number) {
  return roleHolders(db, caller, trainers, courseId);
}

/** POST /training-courses/{id}/trainers (admins): the member may record trainings of the course. */
export function addCourseTrainer(db: Db, caller: Caller, courseId: number, memberId: number, at: string) {
  return addRoleHolder(db, caller, trainers, courseId, memberId, at);
}

/** DELETE /training-courses/{id}/trainers/{memberId} (admins). Trainings they signed stay. */
export function removeCourseTrainer(db: Db, caller: Caller, courseId: number, memberId: number) {
  return removeRoleHolder(db, caller, trainers, courseId, memberId);
}

/** Does the member train the course? */
export function trainsCourse(db: Db, courseId: number, memberId: number) {
  return roleHeld(db, trainers, courseId, memberId);
}

/**
 * The member a caller may record a training of this course for: admins any member they see
 * (checked by the caller of this), a trainer of the course another member of the account. Each
 * refusal says why (`data.reason`).
 */
export async function traineeOfTrainer(db: Db, caller: Caller, memberId: number, courseId: number) {
  if (isAdmin(caller)) throw new Error('admins record trainings through findMember');
  const trains = caller.memberId ? await trainsCourse(db, courseId, caller.memberId) : undefined;
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
  const course = await visibleSubject(db, caller, trainers, courseId);
  if (!isAdmin(caller) && !(await trainsCourse(db, course.id, caller.memberId))) {
    throw forbidden('Only admins and the trainers of this course may look for trainees', {
      reason: 'notTrainer',
    });
  }
  return membersMatching(db, course.account, q, 20);
}
