import {
  type BillingSettingsRecord as BillingRecord,
  BillingSettingsRecord,
  BillingSettingsUpdate,
  CalendarUrl,
  OpeningHours,
} from '@makerspace/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound, unprocessable } from '../errors.js';
import { callerOf } from '../http/auth.js';
import { type Collection, findIn, updateIn } from '../http/collection.js';
import { publicOrigin } from '../http/server-options.js';
import type { HubServices } from '../http/services.js';
import { adminOnly } from '../identity/caller.js';
import { newToken } from '../secrets.js';
import { calendarFeed } from '../spaces/calendar.js';
import { openingHoursProblems } from '../spaces/schedule.js';
import {
  billingSettingsRecord,
  billingSettingsToChange,
  calendarPath,
  clearStripe,
  ensureBillingSettings,
  openingHoursOf,
  replaceOpeningHours,
  setCalendarToken,
  spaceOfCalendarToken,
} from '../spaces/spaces.repository.js';
import { SpaceParams } from '../http/params.js';
import { lockedNote } from '../http/openapi-doc.js';

const tags = ['spaces'];

/** A change of billing settings, for the docs of both paths that change them. */
export const billingSettingsExample = {
  lockVersion: 2,
  currency: 'EUR',
  taxPercent: '20.00',
  invoiceNumberPrefix: 'MS-',
};

/**
 * What is special about a space beside its collections (spec 4.9): the opening hours (replaced
 * as a whole), the calendar token and its public feed, the billing settings by space, and the
 * Stripe disconnect (also at the spec's singular /space path).
 */
export function registerSpaceExtras(
  fastify: FastifyInstance,
  ctx: HubServices,
  c: { spaces: Collection<'spaces'>; billingSettings: Collection<'space_billing_settings', BillingRecord> },
): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const spaceOf = (request: FastifyRequest, spaceId: number) =>
    findIn(c.spaces, ctx, callerOf(request), {}, spaceId);
  /** The space for a write: admins of its account only (others: 404 if they cannot see it, else 403). */
  const spaceToManage = async (request: FastifyRequest, spaceId: number) => {
    const space = await spaceOf(request, spaceId);
    const caller = adminOnly(callerOf(request));
    return { space, stamp: { at: ctx.clock.now().toISOString(), by: caller.memberId } };
  };
  const settingsOf = async (request: FastifyRequest, spaceId: number) =>
    ensureBillingSettings(ctx.db, await spaceOf(request, spaceId), ctx.clock.now().toISOString());

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
      const problems = openingHoursProblems(request.body);
      if (problems.length > 0) throw unprocessable(problems.join('; '), { invalidOpeningHours: problems });
      await ctx.db.transaction().execute((trx) => replaceOpeningHours(trx, space, request.body, stamp));
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

  app.get(
    '/spaces/:spaceId/billing-settings',
    {
      schema: {
        tags,
        summary: 'Get a space’s billing settings',
        description:
          'Currency, tax, invoice numbering and texts, payment providers. Admins only (403 for plain members, who read what their invoices print on the invoice); `GET /spaces?embed=billingSettings` leaves them out for plain members.',
        params: SpaceParams,
        response: { 200: BillingSettingsRecord },
      },
    },
    async (request) => {
      // Billing settings are the admins'; a member reads what their invoices print on the invoice.
      adminOnly(callerOf(request));
      return billingSettingsRecord(await settingsOf(request, request.params.spaceId));
    },
  );

  app.put(
    '/spaces/:spaceId/billing-settings',
    {
      schema: {
        tags,
        summary: 'Change a space’s billing settings',
        description: lockedNote,
        admins: true,
        example: billingSettingsExample,
        params: SpaceParams,
        body: BillingSettingsUpdate,
        response: { 200: BillingSettingsRecord },
      },
    },
    async (request) => {
      // 404, then 403, then 409 before the settings are made: a refused change writes nothing.
      const space = await spaceOf(request, request.params.spaceId);
      adminOnly(callerOf(request));
      const at = ctx.clock.now().toISOString();
      const settings = await billingSettingsToChange(ctx.db, space, request.body.lockVersion, at);
      return updateIn(c.billingSettings, ctx, request, {}, settings.id, request.body);
    },
  );

  // The spec's singular /space path beside Fabman's plural one.
  const stripe = 'Clears the Stripe fields of the billing settings. Answers 204.';
  for (const prefix of ['/space', '/spaces']) {
    app.delete(
      `${prefix}/:spaceId/billing-settings/stripe`,
      {
        schema: {
          tags,
          summary: 'Disconnect Stripe from a space',
          description:
            prefix === '/space' ? `${stripe} Also at /spaces/:spaceId/billing-settings/stripe.` : stripe,
          admins: true,
          params: SpaceParams,
        },
      },
      async (request, reply) => {
        const { space, stamp } = await spaceToManage(request, request.params.spaceId);
        const settings = await ensureBillingSettings(ctx.db, space, stamp.at);
        await clearStripe(ctx.db, settings.id, stamp);
        return reply.code(204).send();
      },
    );
  }
}
