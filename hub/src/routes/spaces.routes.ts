import { publicOrigin } from '../http/server-options.js';
import {
  BillingSettingsRecord,
  BillingSettingsUpdate,
  CalendarUrl,
  HolidayCreate,
  HolidayRecord,
  HolidayUpdate,
  OpeningHours,
  SpaceCreate,
  SpaceRecord,
  SpaceUpdate,
} from '@makerspace/shared';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { defined, now, updateLocked, likePattern } from '../db/crud.js';
import { callerOf, requireAdmin } from '../http/auth.js';
import type { Caller } from '../identity/caller.js';
import { conflict, notFound, unprocessable } from '../errors.js';
import { embedParam, pageParams, queryPage, sendPage } from '../http/list.js';
import { hashToken, newToken } from '../secrets.js';
import { calendarFeed } from '../spaces/calendar.js';
import { openingHoursProblems } from '../spaces/schedule.js';
import {
  billingColumns,
  billingSettingsRecord,
  calendarPath,
  createSpace,
  ensureBillingSettings,
  findBillingSettings,
  findHoliday,
  findSpace,
  holidayRecord,
  openingHoursOf,
  replaceOpeningHours,
  type SpaceRow,
  spaceColumns,
  spaceRecord,
  stripeCleared,
  visibleSpaces,
} from '../spaces/spaces.repository.js';
import { localDateTime } from '../spaces/zoned-time.js';

const id = z.coerce.number().int().positive();
const SpaceParams = z.object({ spaceId: id });
const HolidayParams = z.object({ spaceId: id, holidayId: id });
const BillingParams = z.object({ billingSettingsId: id });
const spaceEmbeds = ['openingHours', 'holidays', 'billingSettings'] as const;

const SpaceList = z.object({ ...pageParams, embed: embedParam(spaceEmbeds) });
const HolidayList = z.object({
  ...pageParams,
  past: z.boolean().default(false).describe('Also list holidays that have ended (default: upcoming only)'),
});

/** Origin for absolute links: HUB_PUBLIC_URL, else the request's own. */
function origin(ctx: HubServices, request: FastifyRequest): string {
  return publicOrigin(ctx.publicUrl, request);
}

function checkHolidayRange(from: string, until: string) {
  if (until <= from) throw unprocessable('untilDateTime must be after fromDateTime', { invalidRange: true });
}

/** spec 4.9: spaces, opening hours, holidays, calendar feed and billing settings. */
export function spacesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const record = (request: FastifyRequest, row: SpaceRow) =>
      spaceRecord(row, callerOf(request), ctx.tokens, origin(ctx, request));

    async function withEmbeds(request: FastifyRequest, row: SpaceRow, embeds: readonly string[]) {
      const base = record(request, row);
      if (embeds.length === 0) return base;
      const embedded: Record<string, unknown> = {};
      if (embeds.includes('openingHours')) embedded.openingHours = await openingHoursOf(ctx.db, row.id);
      if (embeds.includes('holidays')) {
        const rows = await ctx.db
          .selectFrom('holidays')
          .selectAll()
          .where('space', '=', row.id)
          .where('untilDateTime', '>=', localDateTime(ctx.clock.now(), row.timezone))
          .orderBy('fromDateTime')
          .limit(1000)
          .execute();
        embedded.holidays = rows.map(holidayRecord);
      }
      if (embeds.includes('billingSettings')) {
        embedded.billingSettings = billingSettingsRecord(await ensureBillingSettings(ctx.db, row));
      }
      return { ...base, _embedded: embedded };
    }

    /** The space for a write: admins of its account only (others: 404 if they cannot see it, else 403). */
    async function spaceToManage(request: FastifyRequest, spaceId: number): Promise<[Caller, SpaceRow]> {
      const caller = callerOf(request);
      const row = await findSpace(ctx.db, caller, spaceId);
      requireAdmin(request);
      return [caller, row];
    }

    // ---- spaces ----

    app.post(
      '/spaces',
      { schema: { tags: ['spaces'], body: SpaceCreate, response: { 201: SpaceRecord } } },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const row = await createSpace(ctx.db, caller, request.body);
        return reply.code(201).send(record(request, row));
      },
    );

    app.get(
      '/spaces',
      { schema: { tags: ['spaces'], querystring: SpaceList, response: { 200: z.array(SpaceRecord) } } },
      async (request, reply) => {
        const { limit, offset, q, embed } = request.query;
        let base = visibleSpaces(ctx.db, callerOf(request));
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('name')]), 'like', likePattern(q)));
        const page = await queryPage(base, { limit, offset }, (b) => b.selectAll().orderBy('id'));
        return sendPage(
          request,
          reply,
          page,
          await Promise.all(page.rows.map((row) => withEmbeds(request, row, embed))),
          ctx.publicUrl,
        );
      },
    );

    app.get(
      '/spaces/:spaceId',
      {
        schema: {
          tags: ['spaces'],
          params: SpaceParams,
          querystring: z.object({ embed: embedParam(spaceEmbeds) }),
          response: { 200: SpaceRecord },
        },
      },
      async (request) => {
        const row = await findSpace(ctx.db, callerOf(request), request.params.spaceId);
        return withEmbeds(request, row, request.query.embed);
      },
    );

    app.put(
      '/spaces/:spaceId',
      {
        schema: { tags: ['spaces'], params: SpaceParams, body: SpaceUpdate, response: { 200: SpaceRecord } },
      },
      async (request) => {
        const [caller, row] = await spaceToManage(request, request.params.spaceId);
        const { lockVersion, ...fields } = request.body;
        await updateLocked(ctx.db, 'spaces', row.id, lockVersion, spaceColumns(fields), caller.memberId);
        return record(request, await findSpace(ctx.db, caller, row.id));
      },
    );

    app.delete(
      '/spaces/:spaceId',
      { schema: { tags: ['spaces'], params: SpaceParams } },
      async (request, reply) => {
        const [, row] = await spaceToManage(request, request.params.spaceId);
        const count = async (table: 'resources' | 'members') =>
          Number(
            (
              await ctx.db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where('space', '=', row.id)
                .executeTakeFirstOrThrow()
            ).n,
          );
        const [resources, members] = [await count('resources'), await count('members')];
        if (resources > 0 || members > 0) {
          const blockers = [
            resources > 0 ? `${resources} resource(s)` : null,
            members > 0 ? `${members} member(s)` : null,
          ].filter(Boolean);
          throw conflict(`The space still has ${blockers.join(' and ')}; move or delete them first`, {
            resources,
            members,
          });
        }
        await ctx.db.deleteFrom('spaces').where('id', '=', row.id).execute();
        return reply.code(204).send();
      },
    );

    // ---- opening hours ----

    app.get(
      '/spaces/:spaceId/opening-hours',
      { schema: { tags: ['spaces'], params: SpaceParams, response: { 200: OpeningHours } } },
      async (request) => {
        const row = await findSpace(ctx.db, callerOf(request), request.params.spaceId);
        return openingHoursOf(ctx.db, row.id);
      },
    );

    app.put(
      '/spaces/:spaceId/opening-hours',
      {
        schema: {
          tags: ['spaces'],
          params: SpaceParams,
          body: OpeningHours,
          response: { 200: OpeningHours },
        },
      },
      async (request) => {
        const [caller, row] = await spaceToManage(request, request.params.spaceId);
        const problems = openingHoursProblems(request.body);
        if (problems.length > 0) throw unprocessable(problems.join('; '), { invalidOpeningHours: problems });
        await replaceOpeningHours(ctx.db, row, request.body, caller.memberId);
        return openingHoursOf(ctx.db, row.id);
      },
    );

    // ---- holidays ----

    app.post(
      '/spaces/:spaceId/holidays',
      {
        schema: {
          tags: ['spaces'],
          params: SpaceParams,
          body: HolidayCreate,
          response: { 201: HolidayRecord },
        },
      },
      async (request, reply) => {
        const [caller, space] = await spaceToManage(request, request.params.spaceId);
        const { title, fromDateTime, untilDateTime, affects } = request.body;
        checkHolidayRange(fromDateTime, untilDateTime);
        const at = now();
        const row = await ctx.db
          .insertInto('holidays')
          .values({
            account: space.account,
            space: space.id,
            title: title ?? null,
            fromDateTime,
            untilDateTime,
            affects: affects ?? 'all',
            createdAt: at,
            updatedAt: at,
            updatedBy: caller.memberId,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return reply.code(201).send(holidayRecord(row));
      },
    );

    app.get(
      '/spaces/:spaceId/holidays',
      {
        schema: {
          tags: ['spaces'],
          params: SpaceParams,
          querystring: HolidayList,
          response: { 200: z.array(HolidayRecord) },
        },
      },
      async (request, reply) => {
        const space = await findSpace(ctx.db, callerOf(request), request.params.spaceId);
        const { limit, offset, q, past } = request.query;
        let base = ctx.db.selectFrom('holidays').where('space', '=', space.id);
        // "Upcoming" = not yet over on the space's wall clock.
        if (!past) base = base.where('untilDateTime', '>=', localDateTime(ctx.clock.now(), space.timezone));
        if (q) base = base.where((eb) => eb(eb.fn('lower', [eb.ref('title')]), 'like', likePattern(q)));
        const page = await queryPage(base, { limit, offset }, (b) =>
          b.selectAll().orderBy('fromDateTime').orderBy('id'),
        );
        return sendPage(request, reply, page, page.rows.map(holidayRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/spaces/:spaceId/holidays/:holidayId',
      { schema: { tags: ['spaces'], params: HolidayParams, response: { 200: HolidayRecord } } },
      async (request) => {
        const space = await findSpace(ctx.db, callerOf(request), request.params.spaceId);
        return holidayRecord(await findHoliday(ctx.db, space, request.params.holidayId));
      },
    );

    // spec 4.9 uses the singular /space/... path; Fabman clients use the plural one.
    for (const prefix of ['/space', '/spaces']) {
      app.put(
        `${prefix}/:spaceId/holidays/:holidayId`,
        {
          schema: {
            tags: ['spaces'],
            params: HolidayParams,
            body: HolidayUpdate,
            response: { 200: HolidayRecord },
          },
        },
        async (request) => {
          const [caller, space] = await spaceToManage(request, request.params.spaceId);
          const current = await findHoliday(ctx.db, space, request.params.holidayId);
          const { lockVersion, ...fields } = request.body;
          checkHolidayRange(
            fields.fromDateTime ?? current.fromDateTime,
            fields.untilDateTime ?? current.untilDateTime,
          );
          await updateLocked(ctx.db, 'holidays', current.id, lockVersion, defined(fields), caller.memberId);
          return holidayRecord(await findHoliday(ctx.db, space, current.id));
        },
      );

      app.delete(
        `${prefix}/:spaceId/holidays/:holidayId`,
        { schema: { tags: ['spaces'], params: HolidayParams } },
        async (request, reply) => {
          const [, space] = await spaceToManage(request, request.params.spaceId);
          const current = await findHoliday(ctx.db, space, request.params.holidayId);
          await ctx.db.deleteFrom('holidays').where('id', '=', current.id).execute();
          return reply.code(204).send();
        },
      );
    }

    // ---- calendar ----

    app.put(
      '/spaces/:spaceId/calendar-token',
      { schema: { tags: ['spaces'], params: SpaceParams, response: { 200: CalendarUrl } } },
      async (request) => {
        const [caller, space] = await spaceToManage(request, request.params.spaceId);
        const token = newToken();
        await ctx.db
          .updateTable('spaces')
          .set({
            calendarTokenHash: hashToken(token),
            calendarTokenEncrypted: ctx.tokens.seal(token),
            updatedAt: now(),
            updatedBy: caller.memberId,
          })
          .where('id', '=', space.id)
          .execute();
        return { calendarUrl: `${origin(ctx, request)}${calendarPath(token)}` };
      },
    );

    app.delete(
      '/spaces/:spaceId/calendar-token',
      { schema: { tags: ['spaces'], params: SpaceParams } },
      async (request, reply) => {
        const [caller, space] = await spaceToManage(request, request.params.spaceId);
        await ctx.db
          .updateTable('spaces')
          .set({
            calendarTokenHash: null,
            calendarTokenEncrypted: null,
            updatedAt: now(),
            updatedBy: caller.memberId,
          })
          .where('id', '=', space.id)
          .execute();
        return reply.code(204).send();
      },
    );

    // The feed is public: calendar apps cannot send tokens, so the secret is in the URL.
    app.get(
      '/calendar/:file',
      {
        config: { public: true },
        schema: { tags: ['spaces'], params: z.object({ file: z.string().max(100) }) },
      },
      async (request, reply) => {
        const token = request.params.file.replace(/\.ics$/, '');
        const space = await ctx.db
          .selectFrom('spaces')
          .selectAll()
          .where('calendarTokenHash', '=', hashToken(token))
          .executeTakeFirst();
        if (!space) throw notFound('Calendar');
        const body = await calendarFeed(
          ctx.db,
          space,
          ctx.clock.now(),
          new URL(origin(ctx, request)).hostname,
        );
        return reply
          .header('content-type', 'text/calendar; charset=utf-8')
          .header('cache-control', 'private, max-age=300')
          .send(body);
      },
    );

    // ---- billing settings ----

    app.get(
      '/spaces/:spaceId/billing-settings',
      { schema: { tags: ['spaces'], params: SpaceParams, response: { 200: BillingSettingsRecord } } },
      async (request) => {
        const space = await findSpace(ctx.db, callerOf(request), request.params.spaceId);
        return billingSettingsRecord(await ensureBillingSettings(ctx.db, space));
      },
    );

    async function updateBilling(
      request: FastifyRequest,
      settingsId: number,
      body: z.infer<typeof BillingSettingsUpdate>,
    ) {
      const caller = callerOf(request);
      const current = await findBillingSettings(ctx.db, caller, settingsId);
      requireAdmin(request);
      const { lockVersion, ...fields } = body;
      await updateLocked(
        ctx.db,
        'space_billing_settings',
        current.id,
        lockVersion,
        billingColumns(fields),
        caller.memberId,
      );
      return billingSettingsRecord(await findBillingSettings(ctx.db, caller, current.id));
    }

    app.put(
      '/space-billing-settings/:billingSettingsId',
      {
        schema: {
          tags: ['spaces'],
          params: BillingParams,
          body: BillingSettingsUpdate,
          response: { 200: BillingSettingsRecord },
        },
      },
      async (request) => updateBilling(request, request.params.billingSettingsId, request.body),
    );

    app.put(
      '/spaces/:spaceId/billing-settings',
      {
        schema: {
          tags: ['spaces'],
          params: SpaceParams,
          body: BillingSettingsUpdate,
          response: { 200: BillingSettingsRecord },
        },
      },
      async (request) => {
        const space = await findSpace(ctx.db, callerOf(request), request.params.spaceId);
        const settings = await ensureBillingSettings(ctx.db, space);
        return updateBilling(request, settings.id, request.body);
      },
    );

    for (const prefix of ['/space', '/spaces']) {
      app.delete(
        `${prefix}/:spaceId/billing-settings/stripe`,
        { schema: { tags: ['spaces'], params: SpaceParams } },
        async (request, reply) => {
          const [caller, space] = await spaceToManage(request, request.params.spaceId);
          const settings = await ensureBillingSettings(ctx.db, space);
          await ctx.db
            .updateTable('space_billing_settings')
            .set((eb) => ({
              ...stripeCleared,
              lockVersion: eb('lockVersion', '+', 1),
              updatedAt: now(),
              updatedBy: caller.memberId,
            }))
            .where('id', '=', settings.id)
            .execute();
          return reply.code(204).send();
        },
      );
    }
  };
}
