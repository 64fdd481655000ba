import {
  MemberTrainingCreate,
  MemberTrainingRecord,
  MemberTrainingsQuery,
  MemberTrainingUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { collection, ofMember, registerCollection, underMember } from '../http/collection.js';
import { isAdmin } from '../kernel/caller.js';
import { isTrainerFor, traineeOfTrainer } from '../spaces/trainers.js';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { findMember } from '../identity/members.js';
import { trainedResources } from '../spaces/trained-resources.js';
import {
  createMemberTraining,
  emitMemberTraining,
  memberTrainingChanges,
  memberTrainingRecord,
  memberTrainingRecords,
  trainingsUntil,
  visibleMemberTrainings,
} from '../spaces/training.repository.js';
import { MemberParams } from '../http/params.js';
import { pagedNote } from '../http/openapi-doc.js';
import { trainingCourses } from './training-courses.routes.js';
import { courseTrainerRoutes } from './course-trainers.routes.js';
import { trainingTapRoutes } from './training-taps.routes.js';

/** spec 4.2: the trainings a member has taken. */
export const memberTrainings = collection({
  ...underMember('member_trainings', 'trainings'),
  // A trainer sees, under another member of the account, the trainings they signed there.
  scope: async (ctx, caller, params, db) => {
    const { memberId } = params;
    if (isAdmin(caller) || caller.memberId === memberId || !(await isTrainerFor(db, caller, memberId))) {
      return ofMember('member_trainings')(ctx, caller, params, db);
    }
    return visibleMemberTrainings(db, caller).where('member_trainings.member', '=', memberId);
  },
  tag: 'training',
  record: MemberTrainingRecord,
  toRecord: memberTrainingRecord,
  list: {
    order: [
      ['date', 'desc'],
      ['id', 'desc'],
    ],
  },
  create: {
    body: MemberTrainingCreate,
    // Admins record any course; a trainer of the course records it for another member.
    rule: 'member',
    insert: async (trx, { ctx, caller, body, params }) => {
      if (isAdmin(caller)) {
        const member = await findMember(trx, caller, params.memberId);
        return createMemberTraining(trx, { member, caller, body, at: ctx.clock.now() });
      }
      const { member, trainerName } = await traineeOfTrainer(
        trx,
        caller,
        params.memberId,
        body.trainingCourse,
      );
      return createMemberTraining(trx, {
        member,
        caller,
        body: { ...body, trainer: body.trainer ?? trainerName },
        at: ctx.clock.now(),
      });
    },
  },
  update: {
    body: MemberTrainingUpdate,
    columns: (body, row) => memberTrainingChanges(row, body),
    written: (trx, _before, after) => emitMemberTraining(trx, 'memberTraining_updated', after),
  },
  remove: { after: (trx, row) => emitMemberTraining(trx, 'memberTraining_deleted', row) },
  // A training's dates decide who counts as trained.
  committed: (ctx, row, write) => write === 'update' && ctx.events.accessChanged(row.account),
  docs: {
    list: {
      summary: 'List a member’s trainings',
      description: `Newest first. Members see their own; a trainer also sees, under another member, the trainings they signed. ${pagedNote}`,
    },
    get: {
      summary: 'Get a member’s training',
      description: 'One training of the member.',
    },
    create: {
      summary: 'Record a training a member took',
      description:
        'Valid from `fromDate` (default: `date`) until `untilDate` (default: the course’s duration). Admins record any course; a trainer of the course (POST /training-courses/{id}/trainers) records it for another member of the account, and `trainer` defaults to the trainer’s name. `signedBy` is the member who recorded it.',
      errors: {
        403: 'The caller is neither an admin nor a trainer of the course (`data.reason`: `notTrainer`), or a trainer records their own training (`ownTraining`).',
        422: 'The course does not exist, or `untilDate` is before `fromDate`.',
      },
      example: { trainingCourse: 3, date: '2026-11-20', notes: 'Passed the practical part' },
    },
    update: {
      summary: 'Change a member’s training',
      description: `Its \`date\`, \`fromDate\`, \`untilDate\` and \`notes\`. Emits memberTraining_updated.`,
      errors: { 422: '`untilDate` is before `fromDate`.' },
      example: { untilDate: '2027-11-20', lockVersion: 1 },
    },
    remove: {
      summary: 'Delete a member’s training',
      description: 'The member no longer counts as trained by it.',
    },
  },
});

/**
 * The trainings of the whole account (admins; other members see their own), e.g. those that
 * expire in the next 30 days: `untilFrom`/`untilTo` bound the last day of validity.
 */
export const accountTrainings = collection({
  table: 'member_trainings',
  path: '/member-trainings',
  id: 'trainingId',
  noun: 'Member training',
  nouns: 'member trainings',
  tag: 'training',
  record: MemberTrainingRecord,
  visible: visibleMemberTrainings,
  embeds: ['member'],
  records: (ctx, rows, _caller, embed) => memberTrainingRecords(ctx.db, rows, embed),
  list: {
    query: MemberTrainingsQuery,
    where: (base, query) => trainingsUntil(base, query as never),
    order: [
      ['untilDate', 'asc', 'nullsLast'],
      ['id', 'asc'],
    ],
    note: 'Soonest expiry first (trainings valid for ever last). Members see their own and, as trainers, those they signed (`signedBy`). `embed=member` adds the member’s name.',
  },
});

export function trainingRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    registerCollection(app, ctx, trainingCourses);
    registerCollection(app, ctx, memberTrainings);
    registerCollection(app, ctx, accountTrainings);
    courseTrainerRoutes(app, ctx);
    trainingTapRoutes(app, ctx);
    // The resources requiring training that the member is trained for today.
    memberRoute(
      app,
      'get',
      '/members/:memberId/trained-resources',
      {
        tags: ['training'],
        summary: 'The resources a member is trained for',
        description:
          'Ids of the resources requiring training for which the member holds a training of an active course, valid today in the member’s space.',
        params: MemberParams,
        response: { 200: z.array(z.number()) },
      },
      async (request, caller) => {
        const member = await findMember(ctx.db, caller, (request.params as { memberId: number }).memberId);
        return trainedResources(ctx.db, member, ctx.clock.now());
      },
    );
  };
}
