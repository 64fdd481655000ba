import { CourseTrainerCreate, CourseTrainerRecord } from '@makerspace/shared';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { pathId } from '../http/params.js';
import { type App, memberRoute } from '../http/route.js';
import { memberRoleRoutes } from './member-roles.js';
import {
  addCourseTrainer,
  courseTrainers,
  removeCourseTrainer,
  traineeCandidates,
} from '../spaces/trainers.js';

const CourseParams = z.object({ courseId: pathId });
const Trainee = z.object({ id: z.number().int(), firstName: z.string(), lastName: z.string().nullable() });

/** Trainers of a course: who may record its trainings (docs/DECISIONS.md, "Trainers"). */
export function courseTrainerRoutes(app: App, ctx: HubServices): void {
  memberRoleRoutes(app, ctx, {
    path: '/training-courses/:courseId/trainers',
    key: 'courseId',
    tags: ['training'],
    holder: CourseTrainerRecord,
    create: CourseTrainerCreate,
    docs: {
      list: {
        summary: 'List the trainers of a course',
        description:
          'The members who may record trainings of the course, with their names (`_embedded.member`), by name. Every member of the account may see who trains a course.',
      },
      create: {
        summary: 'Make a member trainer of a course',
        description:
          'The member may then record trainings of this course for other members with POST /members/{id}/trainings, and sees the trainings they signed. Answers 201 with the trainer.',
        errors: {
          409: 'The member already trains this course (`data.alreadyTrainer`).',
          422: 'No such member in the account (`data.unknownMember`).',
        },
      },
      remove: {
        summary: 'End a member’s role as trainer of a course',
        description: 'The trainings they signed stay valid.',
      },
    },
    holders: courseTrainers,
    give: addCourseTrainer,
    end: removeCourseTrainer,
  });
  memberRoute(
    app,
    'get',
    '/training-courses/:courseId/trainees',
    {
      tags: ['training'],
      summary: 'Find a member to train, by name (trainers of the course and admins)',
      description:
        'Active members of the account whose first or last name starts with `q`: ids and names only, at most 20. For the trainer who picks the trainee by name instead of a card tap.',
      params: CourseParams,
      querystring: z.object({ q: z.string().trim().min(1).max(100) }),
      response: { 200: z.array(Trainee) },
      errors: { 403: 'The caller does not train this course (`data.reason`: `notTrainer`).' },
    },
    (request, caller) => traineeCandidates(ctx.db, caller, request.params.courseId, request.query.q),
  );
}
