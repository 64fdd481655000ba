import { TrainingTapCreate, TrainingTapRecord } from '@makerspace/shared';
import { z } from 'zod';
import { pathId, ResourceParams } from '../http/params.js';
import { type App, memberRoute } from '../http/route.js';
import { createdRoute, noContentRoute } from '../http/route-kinds.js';
import type { HubServices } from '../http/services.js';
import {
  endTrainingTap,
  openTrainingTap,
  trainingTapRecord,
  visibleTrainingTap,
} from '../spaces/training-taps.js';
import { onResource } from './on-member.js';

const TapParams = z.object({ tapId: pathId });

/** A trainer's "the trainee taps their card at this machine now" (docs/DECISIONS.md, "Trainers"). */
export function trainingTapRoutes(app: App, ctx: HubServices): void {
  createdRoute(
    app,
    'post',
    '/resources/:resourceId/training-taps',
    {
      tags: ['training'],
      summary: 'Wait for a trainee’s card tap at this resource to record a training',
      description:
        'For a trainer of the course (or an admin): for the next 2 minutes, the first known card of another member tapped at this resource’s reader records the course’s training for that member, signed by the trainer, and the reader shows “Training recorded for …” instead of switching on. A new wait at the same resource replaces an earlier one. Poll GET /training-taps/{id} for the outcome. Answers 201.',
      params: ResourceParams,
      body: TrainingTapCreate,
      response: { 201: TrainingTapRecord },
      errors: {
        403: 'The caller does not train this course (`data.reason`: `notTrainer`).',
        422: 'No such course (`data.unknownTrainingCourse`), or the course does not unlock this resource (`data.courseDoesNotUnlock`).',
      },
      example: { trainingCourse: 3 },
    },
    onResource(ctx.db, (resource, request, caller) =>
      openTrainingTap(ctx.db, caller, resource, request.body.trainingCourse, ctx.clock.now()),
    ),
  );
  memberRoute(
    app,
    'get',
    '/training-taps/:tapId',
    {
      tags: ['training'],
      summary: 'A trainer’s wait for a card tap, and its outcome',
      description:
        '`waiting`, `expired`, `recorded` (with the trainee and the member training) or `cancelled`. The trainer who opened it and admins.',
      params: TapParams,
      response: { 200: TrainingTapRecord },
    },
    async (request, caller) =>
      trainingTapRecord(
        ctx.db,
        await visibleTrainingTap(ctx.db, caller, request.params.tapId),
        ctx.clock.now(),
      ),
  );
  noContentRoute(
    app,
    'delete',
    '/training-taps/:tapId',
    {
      tags: ['training'],
      summary: 'Stop waiting for a card tap',
      description: 'A tap after this switches on as usual. Answers 204.',
      params: TapParams,
    },
    (request, caller) => endTrainingTap(ctx.db, caller, request.params.tapId),
  );
}
