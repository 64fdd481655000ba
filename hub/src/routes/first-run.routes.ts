import { AvailabilityQuery, HubInfo, ResourceAvailability, SetupProgress } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { badRequest } from '../errors.js';
import { ResourceParams } from '../http/params.js';
import type { HubServices } from '../http/services.js';
import { publicRoute } from '../http/route-kinds.js';
import { adminRoute, memberRoute } from '../http/route.js';
import { busyTimes, setupFacts, timezoneOfSpace } from '../spaces/first-run.repository.js';
import { openingHoursOf } from '../spaces/spaces.repository.js';
import { linkLifetimeMs } from '../sign-in/links.js';
import { onResource } from './on-member.js';

/** The longest availability window one call answers. */
const maxWindowMs = 31 * 86_400_000;

/**
 * What a fresh hub's pages need to guide people: the hub's own set-up (public), the first-run
 * checklist's facts (admins), and a resource's free/busy view for members booking it.
 */
export function firstRunRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const hubInfo = (): HubInfo => ({
      mailConfigured: ctx.mailer !== null,
      publicUrlSet: Boolean(ctx.publicUrl),
      signInLinkMinutes: linkLifetimeMs / 60_000,
      invitationDays: Math.round(ctx.invitationLifetimeMs / 86_400_000),
    });

    publicRoute(
      app,
      'get',
      '/hub-info',
      {
        tags: ['sign-in'],
        summary: 'How this hub is set up: mail, public address, link lifetimes (no credentials needed)',
        description:
          'The sign-in page reads `mailConfigured` to offer e-mailed links only when mail can carry them; the admin console reads `publicUrlSet` to warn that stickers and pairing commands point at localhost until HUB_PUBLIC_URL is set. Tells nothing about members or records.',
        security: [],
        response: { 200: HubInfo },
      },
      () => hubInfo(),
    );

    adminRoute(
      app,
      'get',
      '/setup-progress',
      {
        tags: ['spaces'],
        summary: 'What a new makerspace has set up so far (admins): the first-run checklist',
        description:
          'Whether HUB_PUBLIC_URL and mail are set, each active space’s time zone and number of opening-hour ranges, and how many active packages, active resources, bridges and invited members the account has.',
        response: { 200: SetupProgress },
      },
      async (_request, caller) => {
        const info = hubInfo();
        return {
          publicUrlSet: info.publicUrlSet,
          mailConfigured: info.mailConfigured,
          ...(await setupFacts(ctx.db, caller.accountId)),
        };
      },
    );

    memberRoute(
      app,
      'get',
      '/resources/:resourceId/availability',
      {
        tags: ['bookings'],
        summary: 'Free/busy view of a resource for booking (members who see it)',
        description:
          'The confirmed bookings of the resource between `from` and `until` (at most 31 days), without whose they are except the caller’s own (`mine`), with the space’s time zone and opening hours, so a member books in the space’s wall time whatever their phone’s zone.',
        params: ResourceParams,
        querystring: AvailabilityQuery,
        response: { 200: ResourceAvailability },
      },
      onResource(ctx.db, async (resource, request, caller) => {
        const from = new Date(request.query.from);
        const until = new Date(request.query.until);
        if (until <= from) {
          throw badRequest('querystring.until: must be after from', {
            validation: [{ path: 'until', message: 'must be after from' }],
          });
        }
        if (until.getTime() - from.getTime() > maxWindowMs) {
          throw badRequest('querystring.until: at most 31 days after from', {
            validation: [{ path: 'until', message: 'at most 31 days after from' }],
          });
        }
        const [timezone, openingHours, busy] = await Promise.all([
          timezoneOfSpace(ctx.db, resource.space),
          openingHoursOf(ctx.db, resource.space),
          busyTimes(ctx.db, resource.id, from.toISOString(), until.toISOString()),
        ]);
        return {
          resource: resource.id,
          timezone,
          openingHours,
          busy: busy.map((b) => ({
            fromDateTime: b.fromDateTime,
            untilDateTime: b.untilDateTime,
            mine: b.member === caller.memberId,
          })),
        };
      }),
    );
  };
}
