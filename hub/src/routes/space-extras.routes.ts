import { CalendarUrl, OpeningHours } from '@makerspace/shared';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Db } from '../db/crud.js';
import { notFound, unprocessable } from '../errors.js';
import { callerOf } from '../http/auth.js';
import { type Collection, findIn } from '../http/collection.js';
import { publicOrigin } from '../http/server-options.js';
import type { App } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import { adminOnly } from '../kernel/caller.js';
import { newToken } from '../secrets.js';
import { calendarFeed } from '../spaces/calendar.js';
import { openingHoursProblems } from '../spaces/schedule.js';
import {
  calendarPath,
  openingHoursOf,
  replaceOpeningHours,
  setCalendarToken,
  spaceOfCalendarToken,
} from '../spaces/spaces.repository.js';
import { SpaceParams } from '../http/params.js';

const tags = ['spaces'];

/** The space a path names as the caller sees it, and the same for a write of its parts. */
export type SpaceAccess = ReturnType<typeof spaceAccess>;

export function spaceAccess(ctx: HubServices, spaces: Collection<'spaces'>) {
  const spaceOf = (request: FastifyRequest, spaceId: number) =>
    findIn(spaces, ctx, callerOf(request), {}, spaceId);
  /** The space for a write: admins of its account only (others: 404 if they cannot see it, else 403). */
  const spaceToManage = async (request: FastifyRequest, spaceId: number) => {
    const space = await spaceOf(request, spaceId);
    const caller = adminOnly(callerOf(request));
    return { space, stamp: { at: ctx.clock.now().toISOString(), by: caller.memberId } };
  };
  return { spaceOf, spaceToManage };
}

/** Replaces a space's opening hours in `trx` (422 when times overlap or end before they start). */
export async function writeOpeningHours(
  trx: Db,
  space: Parameters<typeof replaceOpeningHours>[1],
  hours: z.infer<typeof OpeningHours>,
  stamp: Parameters<typeof replaceOpeningHours>[3],
): Promise<void> {
  const problems = openingHoursProblems(hours);
  if (problems.length > 0) throw unprocessable(problems.join('; '), { invalidOpeningHours: problems });
  await replaceOpeningHours(trx, space, hours, stamp);
}

/**
 * What is special about a space beside its collections (spec 4.9): the opening hours (replaced
 * as a whole), and the calendar token and its public feed. Its billing settings are in
 * space-billing.routes.ts.
 */
export function registerSpaceExtras(app: App, ctx: HubServices, access: SpaceAccess): void {
  const { spaceOf, spaceToManage } = access;

  app.get(
    '/spaces/:spaceId/opening-hours',
    {
      schema: {
        tags,
        summary: 'Get a space’s opening hours',
        description: 'A list of `{dayOfWeek, fromTime, untilTime}` in the space’s time zone (1 = Monday).',
        params: SpaceParams,
        response: { 200: OpeningHours },
      },
    },
    async (request) => openingHoursOf(ctx.db, (await spaceOf(request, request.params.spaceId)).id),
  );

  app.put(
    '/spaces/:spaceId/opening-hours',
    {
      schema: {
        tags,
        summary: 'Replace a space’s opening hours',
        description:
          'The whole week at once, in the space’s time zone. An empty list means no opening hours: the space is open at all times.',
        admins: true,
        errors: { 422: 'Times overlap or end before they start (`data.invalidOpeningHours`).' },
        example: [
          { dayOfWeek: 2, fromTime: '09:00', untilTime: '18:00' },
          { dayOfWeek: 6, fromTime: '10:00', untilTime: '16:00' },
        ],
        params: SpaceParams,
        body: OpeningHours,
        response: { 200: OpeningHours },
      },
    },
    async (request) => {
      const { space, stamp } = await spaceToManage(request, request.params.spaceId);
      await ctx.db.transaction().execute((trx) => writeOpeningHours(trx, space, request.body, stamp));
      return openingHoursOf(ctx.db, space.id);
    },
  );

  app.put(
    '/spaces/:spaceId/calendar-token',
    {
      schema: {
        tags,
        summary: 'Create a new calendar URL',
        description:
          'Answers the secret URL of the space’s iCalendar feed of bookings and holidays; an earlier URL stops working.',
        admins: true,
        params: SpaceParams,
        response: { 200: CalendarUrl },
      },
    },
    async (request) => {
      const { space, stamp } = await spaceToManage(request, request.params.spaceId);
      const token = newToken();
      await setCalendarToken(ctx.db, ctx.tokens, space.id, token, stamp);
      return { calendarUrl: `${publicOrigin(ctx.publicUrl, request)}${calendarPath(token)}` };
    },
  );

  app.delete(
    '/spaces/:spaceId/calendar-token',
    {
      schema: {
        tags,
        summary: 'Turn the calendar URL off',
        description: 'The feed’s URL stops working. Answers 204.',
        admins: true,
        params: SpaceParams,
      },
    },
    async (request, reply) => {
      const { space, stamp } = await spaceToManage(request, request.params.spaceId);
      await setCalendarToken(ctx.db, ctx.tokens, space.id, null, stamp);
      return reply.code(204).send();
    },
  );

  // The feed is public: calendar apps cannot send tokens, so the secret is in the URL.
  app.get(
    '/calendar/:file',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'The calendar feed of a space (iCalendar)',
        description:
          'Needs no credentials: the secret in the URL (from PUT /spaces/{spaceId}/calendar-token) is the credential.',
        params: z.object({ file: z.string().max(100) }),
      },
    },
    async (request, reply) => {
      const space = await spaceOfCalendarToken(ctx.db, request.params.file.replace(/\.ics$/, ''));
      if (!space) throw notFound('Calendar');
      const host = new URL(publicOrigin(ctx.publicUrl, request)).hostname;
      return reply
        .header('content-type', 'text/calendar; charset=utf-8')
        .header('cache-control', 'private, max-age=300')
        .send(await calendarFeed(ctx.db, space, ctx.clock.now(), host));
    },
  );
}
