import {
  MemberTrainingCreate,
  MemberTrainingRecord,
  TrainingCourseCreate,
  TrainingCourseRecord,
  TrainingCourseUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubContext } from '../context.js';
import { emitMemberTraining } from '../webhooks/emitters.js';
import { now } from '../db/crud.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import { conflict, unprocessable } from '../http/errors.js';
import { likePattern, pageParams, queryPage, sendPage } from '../http/list.js';
import { findMember } from '../identity/members.js';
import {
  courseResources,
  createCourse,
  defaultUntil,
  findCourse,
  findMemberTraining,
  memberTrainingRecord,
  type TrainingCourseRow,
  trainingCourseRecord,
  updateCourse,
  visibleCourses,
} from '../spaces/training.repository.js';
import { localDate } from '../spaces/zoned-time.js';

const id = z.coerce.number().int().positive();
const CourseParams = z.object({ courseId: id });
const MemberParams = z.object({ memberId: id });
const MemberTrainingParams = z.object({ memberId: id, trainingId: id });
const CourseList = z.object({
  ...pageParams,
  state: z.enum(['active', 'inactive']).optional(),
  resource: z.coerce.number().int().positive().optional().describe('Courses that qualify for this resource'),
});

/** spec 4.13: training courses, and the trainings members have taken (4.2). */
export function trainingRoutes(ctx: HubContext): FastifyPluginAsyncZod {
  return async (app) => {
    const withResources = async (row: TrainingCourseRow) =>
      trainingCourseRecord(row, (await courseResources(ctx.db, [row.id])).get(row.id) ?? []);

    app.post(
      '/training-courses',
      { schema: { tags: ['training'], body: TrainingCourseCreate, response: { 201: TrainingCourseRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await createCourse(ctx.db, caller, request.body);
        ctx.events.accessChanged(row.account);
        return reply.code(201).send(await withResources(row));
      },
    );

    app.get(
      '/training-courses',
      {
        schema: {
          tags: ['training'],
          querystring: CourseList,
          response: { 200: z.array(TrainingCourseRecord) },
        },
      },
      async (request, reply) => {
        const { limit, offset, q, state, resource } = request.query;
        let base = visibleCourses(ctx.db, callerOf(request));
        if (state) base = base.where('state', '=', state);
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('title')]), 'like', likePattern(q)));
        if (resource) {
          base = base.where('id', 'in', (eb) =>
            eb.selectFrom('training_course_resources').select('course').where('resource', '=', resource),
          );
        }
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id'));
        const resources = await courseResources(
          ctx.db,
          page.rows.map((r) => r.id),
        );
        return sendPage(
          request,
          reply,
          page,
          page.rows.map((r) => trainingCourseRecord(r, resources.get(r.id) ?? [])),
          ctx.publicUrl,
        );
      },
    );

    app.get(
      '/training-courses/:courseId',
      { schema: { tags: ['training'], params: CourseParams, response: { 200: TrainingCourseRecord } } },
      async (request) => withResources(await findCourse(ctx.db, callerOf(request), request.params.courseId)),
    );

    app.put(
      '/training-courses/:courseId',
      {
        schema: {
          tags: ['training'],
          params: CourseParams,
          body: TrainingCourseUpdate,
          response: { 200: TrainingCourseRecord },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        await findCourse(ctx.db, caller, request.params.courseId);
        requireAdmin(request);
        const row = await updateCourse(ctx.db, caller, request.params.courseId, request.body);
        // A course's state and resources decide who counts as trained.
        ctx.events.accessChanged(row.account);
        return withResources(row);
      },
    );

    app.delete(
      '/training-courses/:courseId',
      { schema: { tags: ['training'], params: CourseParams } },
      async (request, reply) => {
        const caller = callerOf(request);
        const row = await findCourse(ctx.db, caller, request.params.courseId);
        requireAdmin(request);
        const taken = await ctx.db
          .selectFrom('member_trainings')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('trainingCourse', '=', row.id)
          .executeTakeFirstOrThrow();
        if (Number(taken.n) > 0) {
          throw conflict(
            `${taken.n} member training(s) refer to this course; set it inactive instead, or delete them first`,
            { memberTrainings: Number(taken.n) },
          );
        }
        await ctx.db.deleteFrom('training_courses').where('id', '=', row.id).execute();
        ctx.events.accessChanged(row.account);
        return reply.code(204).send();
      },
    );

    // ---- member trainings ----

    app.get(
      '/members/:memberId/trainings',
      {
        schema: {
          tags: ['training'],
          params: MemberParams,
          querystring: z.object(pageParams),
          response: { 200: z.array(MemberTrainingRecord) },
        },
      },
      async (request, reply) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        const { limit, offset } = request.query;
        const base = ctx.db.selectFrom('member_trainings').where('member', '=', member.id);
        const page = await queryPage(base, { limit, offset }, (b) =>
          b.selectAll().orderBy('date', 'desc').orderBy('id', 'desc'),
        );
        return sendPage(request, reply, page, page.rows.map(memberTrainingRecord), ctx.publicUrl);
      },
    );

    app.post(
      '/members/:memberId/trainings',
      {
        schema: {
          tags: ['training'],
          params: MemberParams,
          body: MemberTrainingCreate,
          response: { 201: MemberTrainingRecord },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        requireAdmin(request);
        const course = await ctx.db
          .selectFrom('training_courses')
          .selectAll()
          .where('id', '=', request.body.trainingCourse)
          .where('account', '=', member.account)
          .executeTakeFirst();
        if (!course) {
          throw unprocessable(`Training course ${request.body.trainingCourse} does not exist`, {
            unknownTrainingCourse: true,
          });
        }
        const space = await ctx.db
          .selectFrom('spaces')
          .select('timezone')
          .where('id', '=', member.space)
          .executeTakeFirst();
        const date = request.body.date ?? localDate(ctx.clock.now(), space?.timezone ?? 'UTC');
        const fromDate = request.body.fromDate === undefined ? date : request.body.fromDate;
        const untilDate =
          request.body.untilDate === undefined
            ? defaultUntil(course, fromDate ?? date)
            : request.body.untilDate;
        if (fromDate && untilDate && untilDate < fromDate) {
          throw unprocessable('untilDate must not be before fromDate', { invalidRange: true });
        }
        const at = now();
        const row = await ctx.events.transaction(async (trx) => {
          const created = await trx
            .insertInto('member_trainings')
            .values({
              account: member.account,
              member: member.id,
              trainingCourse: course.id,
              date,
              fromDate,
              untilDate,
              notes: request.body.notes ?? null,
              createdAt: at,
              updatedAt: at,
              updatedBy: caller.memberId,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          await emitMemberTraining(trx, 'memberTraining_created', created);
          return created;
        });
        return reply.code(201).send(memberTrainingRecord(row));
      },
    );

    app.get(
      '/members/:memberId/trainings/:trainingId',
      {
        schema: { tags: ['training'], params: MemberTrainingParams, response: { 200: MemberTrainingRecord } },
      },
      async (request) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        return memberTrainingRecord(await findMemberTraining(ctx.db, member.id, request.params.trainingId));
      },
    );

    app.delete(
      '/members/:memberId/trainings/:trainingId',
      { schema: { tags: ['training'], params: MemberTrainingParams } },
      async (request, reply) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        const row = await findMemberTraining(ctx.db, member.id, request.params.trainingId);
        requireAdmin(request);
        await ctx.events.transaction(async (trx) => {
          await trx.deleteFrom('member_trainings').where('id', '=', row.id).execute();
          await emitMemberTraining(trx, 'memberTraining_deleted', row);
        });
        return reply.code(204).send();
      },
    );
  };
}
