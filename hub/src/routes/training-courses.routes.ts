import { TrainingCourseCreate, TrainingCourseRecord, TrainingCourseUpdate } from '@makerspace/shared';
import { z } from 'zod';
import { collection } from '../http/collection.js';
import {
  courseChanges,
  courseResources,
  coursesOfResource,
  coursesTrainedBy,
  createCourse,
  refuseDeleteOfTakenCourse,
  trainingCourseRecord,
} from '../spaces/training.repository.js';
import { pathId } from '../http/params.js';
import { pagedNote } from '../http/openapi-doc.js';

/** spec 4.13: training courses. Every member may read them (to know what to sign up for). */
export const trainingCourses = collection({
  table: 'training_courses',
  tag: 'training',
  record: TrainingCourseRecord,
  records: async (ctx, rows) => {
    const resources = await courseResources(
      ctx.db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => trainingCourseRecord(r, resources.get(r.id) ?? []));
  },
  list: {
    search: 'title',
    query: {
      state: z.enum(['active', 'inactive']).optional(),
      resource: pathId.optional().describe('Courses that qualify for this resource'),
      trainer: pathId.optional().describe('Courses this member trains'),
    },
    where: (base, query) => {
      let q = query.state ? base.where('state', '=', query.state as string) : base;
      if (query.resource) q = coursesOfResource(q, query.resource as number);
      if (query.trainer) q = coursesTrainedBy(q, query.trainer as number);
      return q;
    },
  },
  create: {
    body: TrainingCourseCreate,
    insert: (trx, { caller, body, at }) => createCourse(trx, caller, body, at),
  },
  // A course's state and resources decide who counts as trained.
  update: { body: TrainingCourseUpdate, columns: (body, row, { trx }) => courseChanges(trx, row, body) },
  remove: { before: (trx, row) => refuseDeleteOfTakenCourse(trx, row) },
  committed: (ctx, row) => ctx.events.accessChanged(row.account),
  docs: {
    list: {
      summary: 'List training courses',
      description: `Filters: \`state\`, \`resource\` (courses that allow it), \`trainer\` (courses a member trains); \`q\` searches the title. ${pagedNote}`,
    },
    get: {
      summary: 'Get a training course',
      description: 'With the resources it allows.',
    },
    create: {
      summary: 'Add a training course',
      description:
        'A course that allows the resources it lists to members who took it (for resources that require training).',
      errors: { 422: 'A listed resource does not exist in this account.' },
      example: {
        title: 'Laser cutter safety',
        resources: [7],
        defaultDuration: 1,
        defaultDurationUnit: 'year',
      },
    },
    update: {
      summary: 'Change a training course',
      description: 'Its state and resources decide at once who counts as trained.',
      errors: { 422: 'A listed resource does not exist in this account.' },
      example: { lockVersion: 2, resources: [7, 9] },
    },
    remove: {
      summary: 'Delete a training course',
      description: 'Only a course no member has taken; set it inactive otherwise.',
      errors: { 409: 'Members’ trainings refer to the course (`data.memberTrainings`).' },
    },
  },
});
